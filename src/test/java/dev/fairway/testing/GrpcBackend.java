package dev.fairway.testing;

import io.grpc.Attributes;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerTransportFilter;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.protobuf.SimpleRequest;
import io.grpc.testing.protobuf.SimpleResponse;
import io.grpc.testing.protobuf.SimpleServiceGrpc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real grpc-java server on a loopback port of its own, serving grpc-testing's
 * {@code SimpleService}; what its unary call does depends on the request's message.
 *
 * <p>Example: {@code unaryRpc("hello")} answers {@code "echo hello"}; {@code "fail"} ends with
 * {@code INVALID_ARGUMENT}, description {@code "bad input"} and trailer {@code x-detail: why};
 * {@code "slow 300"} answers after 300 ms; {@code "big 8388608"} answers 8 MiB; {@code "hang"}
 * never answers and counts the call's cancellation in {@link #cancels}; {@code "after 14"} sends
 * one message, then ends with status 14 (UNAVAILABLE) in the trailers.
 * {@code serverStreamingRpc("10000")} sends 10,000 messages.
 */
public final class GrpcBackend implements AutoCloseable {
  /** The trailer key a failing call sets. */
  public static final Metadata.Key<String> DETAIL = Metadata.Key.of("x-detail", Metadata.ASCII_STRING_MARSHALLER);

  private final Server server;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final AtomicInteger connections = new AtomicInteger();
  /** Counted down by each cancelled {@code hang} call. */
  public final CountDownLatch cancels = new CountDownLatch(1);
  /** Calls that began. */
  public final AtomicInteger calls = new AtomicInteger();

  private GrpcBackend(int port, int maxConcurrentCallsPerConnection, HealthStatusManager health, Metadata trailers)
      throws IOException {
    NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
        .maxInboundMessageSize(16 * 1024 * 1024)
        .addService(trailers == null ? new Service().bindService()
            : ServerInterceptors.intercept(new Service(), new AddTrailers(trailers)))
        .addTransportFilter(new ServerTransportFilter() {
          @Override
          public Attributes transportReady(Attributes transportAttrs) {
            connections.incrementAndGet();
            return transportAttrs;
          }
        });
    if (health != null) {
      b.addService(health.getHealthService());
    }
    if (maxConcurrentCallsPerConnection > 0) {
      b.maxConcurrentCallsPerConnection(maxConcurrentCallsPerConnection);
    }
    server = b.build().start();
  }

  /** Starts a server; {@code maxConcurrentCallsPerConnection} 0: grpc's default (unlimited). */
  public static GrpcBackend start(int maxConcurrentCallsPerConnection) throws IOException {
    return new GrpcBackend(0, maxConcurrentCallsPerConnection, null, null);
  }

  /**
   * Starts a server on {@code port} (0: any free one; a restarted backend takes its old port) that
   * also serves the standard {@code grpc.health.v1.Health} service of {@code health}.
   */
  public static GrpcBackend start(int port, HealthStatusManager health) throws IOException {
    return new GrpcBackend(port, 0, health, null);
  }

  /**
   * Starts a server with the health service of {@code health} whose {@code SimpleService} calls
   * all end with {@code trailers} added to their own (a load report, {@code lame-duck: true}).
   */
  public static GrpcBackend withTrailers(HealthStatusManager health, Metadata trailers) throws IOException {
    return new GrpcBackend(0, 0, health, trailers);
  }

  /**
   * Shuts down the way a gRPC server does on {@code SIGTERM}: no new connections, a {@code GOAWAY}
   * on each open one, the calls under way finish; returns once they did (or after 10 s).
   */
  public void shutdownGracefully() throws InterruptedException {
    server.shutdown().awaitTermination(10, TimeUnit.SECONDS);
    timer.shutdownNow();
  }

  public int port() {
    return server.getPort();
  }

  /** The connections clients (Fairway) opened to it. */
  public int connections() {
    return connections.get();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    timer.shutdownNow();
  }

  private static SimpleResponse reply(String text) {
    return SimpleResponse.newBuilder().setResponseMessage(text).build();
  }

  /** Adds fixed fields to every call's trailers. */
  private record AddTrailers(Metadata extra) implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
      return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
        @Override
        public void close(Status status, Metadata trailers) {
          trailers.merge(extra);
          super.close(status, trailers);
        }
      }, headers);
    }
  }

  private final class Service extends SimpleServiceGrpc.SimpleServiceImplBase {
    @Override
    public void unaryRpc(SimpleRequest request, StreamObserver<SimpleResponse> out) {
      calls.incrementAndGet();
      String m = request.getRequestMessage();
      if (m.equals("fail")) {
        Metadata trailers = new Metadata();
        trailers.put(DETAIL, "why");
        out.onError(Status.INVALID_ARGUMENT.withDescription("bad input").asRuntimeException(trailers));
      } else if (m.startsWith("slow ")) {
        timer.schedule(() -> {
          out.onNext(reply("slept"));
          out.onCompleted();
        }, Long.parseLong(m.substring(5)), TimeUnit.MILLISECONDS);
      } else if (m.startsWith("big ")) {
        out.onNext(reply("x".repeat(Integer.parseInt(m.substring(4)))));
        out.onCompleted();
      } else if (m.startsWith("after ")) {
        out.onNext(reply("partial"));
        out.onError(Status.fromCodeValue(Integer.parseInt(m.substring(6))).asRuntimeException());
      } else if (m.equals("hang")) {
        ((ServerCallStreamObserver<SimpleResponse>) out).setOnCancelHandler(cancels::countDown);
      } else {
        out.onNext(reply("echo " + (m.length() > 64 ? m.length() + " chars" : m)));
        out.onCompleted();
      }
    }

    @Override
    public void serverStreamingRpc(SimpleRequest request, StreamObserver<SimpleResponse> out) {
      int n = Integer.parseInt(request.getRequestMessage());
      for (int i = 0; i < n; i++) {
        out.onNext(reply("m" + i));
      }
      out.onCompleted();
    }

    @Override
    public StreamObserver<SimpleRequest> clientStreamingRpc(StreamObserver<SimpleResponse> out) {
      StringBuilder all = new StringBuilder();
      return new StreamObserver<>() {
        @Override
        public void onNext(SimpleRequest r) {
          all.append(r.getRequestMessage());
        }

        @Override
        public void onError(Throwable t) {
        }

        @Override
        public void onCompleted() {
          out.onNext(reply(all.toString()));
          out.onCompleted();
        }
      };
    }

    @Override
    public StreamObserver<SimpleRequest> bidiStreamingRpc(StreamObserver<SimpleResponse> out) {
      return new StreamObserver<>() {
        @Override
        public void onNext(SimpleRequest r) {
          out.onNext(reply("re " + r.getRequestMessage()));
        }

        @Override
        public void onError(Throwable t) {
        }

        @Override
        public void onCompleted() {
          out.onCompleted();
        }
      };
    }
  }
}
