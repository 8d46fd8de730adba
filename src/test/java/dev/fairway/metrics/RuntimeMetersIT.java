package dev.fairway.metrics;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.testing.FairwayProcess;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.VertxTestBase;
import io.vertx.core.buffer.Buffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The process's own meters on {@code GET /metrics} of a real Fairway process: memory, collections, files, buffers. */
class RuntimeMetersIT extends VertxTestBase {
  /** The value of the first sample named {@code name} whose labels contain every one of {@code labels}, or -1. */
  private static double sample(String scrape, String name, String... labels) {
    Matcher m = Pattern.compile("^" + Pattern.quote(name) + "(\\{[^}]*\\})? ([0-9.eE+-]+)$", Pattern.MULTILINE)
        .matcher(scrape);
    while (m.find()) {
      String found = m.group(1) == null ? "" : m.group(1);
      boolean all = true;
      for (String l : labels) {
        all &= found.contains(l);
      }
      if (all) {
        return Double.parseDouble(m.group(2));
      }
    }
    return -1;
  }

  @Test
  void memoryCollectionsFilesAndTheProxysBuffersAreMetered(@TempDir Path dir) throws Exception {
    Buffer big = Buffer.buffer(new byte[256 * 1024]);
    TestBackend b1 = TestBackend.start(vertx, req -> req.response().end(big));
    Path conf = dir.resolve("config.json");
    Files.writeString(conf, TestConfig.service("s", backend("b1", b1.port(), 10)).json().encodePrettily());
    try (FairwayProcess p = FairwayProcess.start(conf)) {
      int admin = p.adminPort();
      assertThat(admin).as("started: %s", p.lines()).isPositive();
      TestClient.Reply reply = TestClient.get(vertx, client, p.proxyPort(), "/big");
      assertThat(reply.status()).isEqualTo(200);
      assertThat(reply.body()).hasSize(256 * 1024);
      String scrape = TestClient.get(vertx, client, admin, "/metrics").body();

      double rss = sample(scrape, "process_resident_memory_bytes");
      double peak = sample(scrape, "process_resident_memory_peak_bytes");
      assertThat(rss).as("resident size").isGreaterThan(20e6);
      assertThat(peak).as("peak resident size").isGreaterThanOrEqualTo(rss);
      assertThat(sample(scrape, "jvm_memory_used_bytes", "area=\"heap\"")).isPositive();
      assertThat(sample(scrape, "jvm_memory_used_bytes", "area=\"nonheap\"")).isPositive();
      assertThat(sample(scrape, "jvm_gc_memory_allocated_bytes_total")).isGreaterThanOrEqualTo(0);
      assertThat(sample(scrape, "jvm_classes_loaded_classes")).isGreaterThan(1000);
      assertThat(sample(scrape, "process_files_open_files")).isGreaterThan(3);
      assertThat(sample(scrape, "process_cpu_usage")).isGreaterThanOrEqualTo(0);
      assertThat(sample(scrape, "process_uptime_seconds")).isPositive();
      // The response went through the proxy's pooled allocator, outside the heap: a chunk of it is in use.
      assertThat(sample(scrape, "netty_allocator_memory_used", "allocator_type=\"PooledByteBufAllocator\"",
          "memory_type=\"direct\"")).as("direct buffers in %s", scrape.lines().filter(l -> l.startsWith("netty_allocator"))
          .toList()).isGreaterThanOrEqualTo(1 << 20);
    }
  }
}
