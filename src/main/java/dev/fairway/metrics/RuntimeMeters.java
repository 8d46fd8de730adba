package dev.fairway.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The process's meters beside Fairway's own, for whoever watches its memory and CPU: the JVM's
 * heap and other pools, its collections, classes and threads, CPU use, open files, the resident
 * size and its peak, and the buffers of the allocator the proxy's connections use (outside the heap,
 * so no JVM pool shows them).
 *
 * <p>Example: after {@code RuntimeMeters.bind(registry, PooledByteBufAllocator.DEFAULT)} a scrape
 * has {@code process_resident_memory_bytes 2.5E8}, {@code process_resident_memory_peak_bytes},
 * {@code jvm_memory_used_bytes{area="heap",id="eden space"}}, {@code jvm_gc_pause_seconds_count},
 * {@code process_files_open_files} and
 * {@code netty_allocator_memory_used{allocator_type="PooledByteBufAllocator",memory_type="direct",…}}.
 * The resident sizes are read from {@code /proc/self/status} at each scrape, so only on Linux.
 */
public final class RuntimeMeters {
  private static final Path STATUS = Path.of("/proc/self/status");

  private RuntimeMeters() {
  }

  /** Registers the meters on {@code registry}, for the life of the process. */
  public static void bind(MeterRegistry registry, ByteBufAllocatorMetricProvider buffers) {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    new NettyAllocatorMetrics(buffers).bindTo(registry);
    if (Files.isReadable(STATUS)) {
      resident(registry, "process.resident.memory", "VmRSS", "Resident memory size");
      resident(registry, "process.resident.memory.peak", "VmHWM", "Peak resident memory size since start");
    }
  }

  private static void resident(MeterRegistry registry, String name, String field, String description) {
    Gauge.builder(name, () -> ProcStatus.bytes(status(), field)).description(description).baseUnit("bytes")
        .register(registry);
  }

  private static String status() {
    try {
      return Files.readString(STATUS);
    } catch (IOException e) {
      return "";
    }
  }
}
