package dev.fairway.bench;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.protobuf.SimpleRequest;
import io.grpc.testing.protobuf.SimpleResponse;
import io.grpc.testing.protobuf.SimpleServiceGrpc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A closed-loop gRPC load generator for {@code bench/grpc.sh}: {@code CONNS} channels (one HTTP/2
 * connection each, plaintext, prior knowledge) keep {@code STREAMS} unary calls each in flight for
 * a warm-up, then for the measured seconds; prints {@code rps p50_ms p99_ms errors calls}, and
 * when given a process id, the CPU clock ticks (user + system, {@code /proc/PID/stat}) that
 * process used over the measured seconds.
 *
 * <p>Example: {@code GrpcLoad 127.0.0.1:31381 50 1 5 10 4242} runs 50 calls at a time (5 s
 * warm-up, 10 s measured) against a proxy whose process is 4242 and prints e.g. {@code 21034
 * 2.101 4.873 0 210340 1190}. Latencies go into a 10 µs-bucket histogram up to 10 s, so recording
 * costs no allocation.
 */
public final class GrpcLoad {
  private static final int BUCKET_NANOS = 10_000;
  private static final int BUCKETS = 1_000_000;

  private final SimpleRequest request = SimpleRequest.newBuilder().setRequestMessage("hi").build();
  private final long[] histogram = new long[BUCKETS];
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong calls = new AtomicLong();
  private volatile boolean measuring;
  private volatile boolean stopping;
  private CountDownLatch done;

  private GrpcLoad() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 5 && args.length != 6) {
      throw new IllegalArgumentException("usage: GrpcLoad HOST:PORT CONNS STREAMS WARMUP_S SECONDS [PID]");
    }
    String target = args[0];
    int conns = Integer.parseInt(args[1]);
    int streams = Integer.parseInt(args[2]);
    Path stat = args.length == 6 ? Path.of("/proc", args[5], "stat") : null;
    new GrpcLoad().run(target, conns, streams, Integer.parseInt(args[3]), Integer.parseInt(args[4]), stat);
  }

  /** User plus system clock ticks of a process, from its {@code /proc/PID/stat} (fields 14 and 15). */
  private static long cpuTicks(Path stat) throws IOException {
    String s = Files.readString(stat);
    String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  private void run(String target, int conns, int streams, int warmupS, int seconds, Path stat)
      throws InterruptedException, IOException {
    List<ManagedChannel> channels = new ArrayList<>();
    done = new CountDownLatch(conns * streams);
    for (int c = 0; c < conns; c++) {
      ManagedChannel ch = NettyChannelBuilder.forTarget(target).usePlaintext().directExecutor().build();
      channels.add(ch);
      SimpleServiceGrpc.SimpleServiceStub stub = SimpleServiceGrpc.newStub(ch);
      for (int s = 0; s < streams; s++) {
        call(stub);
      }
    }
    TimeUnit.SECONDS.sleep(warmupS);
    synchronized (histogram) {
      Arrays.fill(histogram, 0);
    }
    errors.set(0);
    calls.set(0);
    long ticks = stat == null ? 0 : cpuTicks(stat);
    long start = System.nanoTime();
    measuring = true;
    TimeUnit.SECONDS.sleep(seconds);
    measuring = false;
    long elapsed = System.nanoTime() - start;
    ticks = stat == null ? 0 : cpuTicks(stat) - ticks;
    stopping = true;
    done.await(10, TimeUnit.SECONDS);
    channels.forEach(ManagedChannel::shutdownNow);
    long n;
    long[] h;
    synchronized (histogram) {
      h = histogram.clone();
    }
    n = Arrays.stream(h).sum();
    System.out.printf("%.0f %.3f %.3f %d %d%s%n", calls.get() * 1e9 / elapsed, percentile(h, n, 0.50),
        percentile(h, n, 0.99), errors.get(), calls.get(), stat == null ? "" : " " + ticks);
  }

  private static double percentile(long[] h, long n, double p) {
    long rank = (long) Math.ceil(n * p);
    long seen = 0;
    for (int i = 0; i < h.length; i++) {
      seen += h[i];
      if (seen >= rank && rank > 0) {
        return (i + 1) * BUCKET_NANOS / 1e6;
      }
    }
    return Double.NaN;
  }

  private void call(SimpleServiceGrpc.SimpleServiceStub stub) {
    if (stopping) {
      done.countDown();
      return;
    }
    long begin = System.nanoTime();
    stub.unaryRpc(request, new StreamObserver<>() {
      private boolean answered;

      @Override
      public void onNext(SimpleResponse value) {
        answered = true;
      }

      @Override
      public void onError(Throwable t) {
        end(begin, false, Status.fromThrowable(t));
        call(stub);
      }

      @Override
      public void onCompleted() {
        end(begin, answered, Status.OK);
        call(stub);
      }
    });
  }

  private void end(long begin, boolean ok, Status status) {
    if (!measuring) {
      return;
    }
    calls.incrementAndGet();
    if (!ok || !status.isOk()) {
      errors.incrementAndGet();
      return;
    }
    int bucket = (int) Math.min(BUCKETS - 1, (System.nanoTime() - begin) / BUCKET_NANOS);
    synchronized (histogram) {
      histogram[bucket]++;
    }
  }
}
