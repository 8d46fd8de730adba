package dev.fairway.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class OrcaParserTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      // header | cpu | app | qps | eps
      "TEXT cpu_utilization=0.42, rps_fractional=120, eps=0.5 | 0.42 | 0 | 120 | 0.5",
      "TEXT cpu_utilization:0.42,rps_fractional:120,eps:0.5 | 0.42 | 0 | 120 | 0.5",
      "  text   cpu_utilization = 0.42 ,  eps = 0.5 ,  | 0.42 | 0 | 0 | 0.5",
      "TEXT cpu_utilization=1e-1, mem_utilization=0.9, named_metrics.x=7, foo=bar | 0.1 | 0 | 0 | 0",
      "TEXT application_utilization=0.3, rps=10 | 0 | 0.3 | 10 | 0",
      "TEXT rps=10, rps_fractional=12.5 | 0 | 0 | 12.5 | 0",
      "TEXT named_metrics.x=1 | 0 | 0 | 0 | 0",
      "TEXT cpu_utilization=2.5, eps=.5 | 2.5 | 0 | 0 | 0.5",
      "JSON {\"cpu_utilization\":0.42,\"rps_fractional\":120,\"eps\":0.5,\"application_utilization\":0.3} | 0.42 | 0.3 | 120 | 0.5",
      "JSON { \"cpu_utilization\" : 0.42 , \"eps\" : 0 } | 0.42 | 0 | 0 | 0",
      "json {\"named_metrics\":{\"x\":1,\"y\":[1,2,{\"z\":null}]},\"mem_utilization\":0.5,\"note\":\"a,\\\"b\",\"ok\":true,\"rps_fractional\":3} | 0 | 0 | 3 | 0",
      "JSON {} | 0 | 0 | 0 | 0",
  })
  void valid(String header, double cpu, double app, double qps, double eps) {
    assertThat(OrcaParser.parse(header)).contains(new LoadReport(cpu, app, qps, eps));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @ValueSource(strings = {
      "",
      "   ",
      "TEXT",
      "TEXT ,",
      "TEXTcpu_utilization=0.4",
      "BIN CgkJAAAAAAAA4D8=",
      "cpu_utilization=0.4",
      "TEXT cpu_utilization=high",
      "TEXT cpu_utilization=-0.4",
      "TEXT cpu_utilization=NaN",
      "TEXT cpu_utilization=Infinity",
      "TEXT cpu_utilization=0x1p3",
      "TEXT cpu_utilization=1d",
      "TEXT cpu_utilization=1e",
      "TEXT cpu_utilization=",
      "TEXT =0.4",
      "TEXT cpu_utilization",
      "TEXT cpu utilization=0.4",
      "TEXT cpu_utilization=0.4, cpu_utilization=0.5",
      "TEXT eps=1=2",
      "JSON",
      "JSON {",
      "JSON {\"cpu_utilization\":0.4",
      "JSON {\"cpu_utilization\":\"0.4\"}",
      "JSON {\"cpu_utilization\":-1}",
      "JSON {\"cpu_utilization\":0.4,}",
      "JSON {\"cpu_utilization\" 0.4}",
      "JSON {cpu_utilization:0.4}",
      "JSON {\"x\":{\"y\":1}",
      "JSON {\"x\":\"\\u12\"}",
      "JSON {\"eps\":1} trailing",
      "JSON [1,2]",
  })
  void invalid(String header) {
    assertThat(OrcaParser.parse(header)).isEmpty();
  }

  @Test
  void nullAndDeepNesting() {
    assertThat(OrcaParser.parse(null)).isEmpty();
    assertThat(OrcaParser.parse("JSON {\"x\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}")).isEmpty();
  }
}
