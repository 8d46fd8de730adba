package dev.fairway.accesslog;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AccessLogAppenderTest {
  /** Keeps each write apart, as the system calls standard output would see. */
  private final List<String> writes = new ArrayList<>();
  private final OutputStream target = new OutputStream() {
    @Override
    public void write(int b) {
      writes.add(String.valueOf((char) b));
    }

    @Override
    public void write(byte[] b, int off, int len) {
      writes.add(new String(b, off, len, StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
      writes.add("closed");
    }
  };
  private final LoggerContext context = new LoggerContext();
  private final AccessLogAppender appender = new AccessLogAppender(target);
  private final Logger access = context.getLogger("fairway.access");

  @BeforeEach
  void start() {
    context.setMDCAdapter(new LogbackMDCAdapter());
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%msg%n");
    encoder.start();
    appender.setContext(context);
    appender.setEncoder(encoder);
    appender.start();
    access.addAppender(appender);
  }

  @AfterEach
  void stop() {
    context.stop();
  }

  private static String line(int i) {
    return "{\"n\":" + i + ",\"pad\":\"" + "x".repeat(250) + "\"}";
  }

  @Test
  void writesNothingUntilTheBatchEndsThenWholeLinesInWritesOfAtMostPipeBuf() {
    StringBuilder expected = new StringBuilder();
    for (int i = 0; i < 99; i++) {
      access.info(line(i));
      expected.append(line(i)).append('\n');
    }
    int beforeEnd = writes.size();
    access.info(AccessLogWriter.BATCH_END, line(99));
    expected.append(line(99)).append('\n');

    assertThat(beforeEnd).isEqualTo(6);
    assertThat(String.join("", writes)).isEqualTo(expected.toString());
    assertThat(writes).hasSize(7).allSatisfy(w -> {
      assertThat(w.length()).isLessThanOrEqualTo(AccessLogAppender.WRITE_BYTES);
      assertThat(w).startsWith("{\"n\":").endsWith("\"}\n");
    });
  }

  @Test
  void aLineLongerThanOneWriteGoesOutAloneAndWhole() {
    String longLine = "y".repeat(AccessLogAppender.WRITE_BYTES + 100);
    access.info("short");
    access.info(AccessLogWriter.BATCH_END, longLine);
    assertThat(writes).containsExactly("short\n", longLine + "\n");
  }

  @Test
  void stoppingWritesOutWhatIsGatheredAndLeavesTheTargetOpen() {
    access.info("unmarked");
    assertThat(writes).isEmpty();
    appender.stop();
    assertThat(writes).containsExactly("unmarked\n");
  }
}
