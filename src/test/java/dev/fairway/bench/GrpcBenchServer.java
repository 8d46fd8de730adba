package dev.fairway.bench;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.protobuf.SimpleRequest;
import io.grpc.testing.protobuf.SimpleResponse;
import io.grpc.testing.protobuf.SimpleServiceGrpc;
import java.util.ArrayList;
import java.util.List;

/**
 * The gRPC backends of {@code bench/grpc.sh}: grpc-java servers (cleartext HTTP/2) whose
 * {@code grpc.testing.SimpleService/UnaryRpc} answers {@code SimpleResponse{responseMessage=
 * "hello"}} at once, on the server's transport threads, and {@code grpc.health.v1.Health} says
 * SERVING (Fairway's {@code healthCheck.type: "grpc"}).
 *
 * <p>Example: {@code GrpcBenchServer 127.0.0.1 31301 31302} serves two backends until killed;
 * each prints {@code ready PORT} once it listens.
 */
public final class GrpcBenchServer {
  private GrpcBenchServer() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      throw new IllegalArgumentException("usage: GrpcBenchServer HOST PORT [PORT...]");
    }
    SimpleResponse hello = SimpleResponse.newBuilder().setResponseMessage("hello").build();
    SimpleServiceGrpc.SimpleServiceImplBase service = new SimpleServiceGrpc.SimpleServiceImplBase() {
      @Override
      public void unaryRpc(SimpleRequest request, StreamObserver<SimpleResponse> response) {
        response.onNext(hello);
        response.onCompleted();
      }
    };
    List<Server> servers = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      int port = Integer.parseInt(args[i]);
      Server s = Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())
          .directExecutor()
          .addService(service)
          .addService(new HealthStatusManager().getHealthService())
          .build()
          .start();
      servers.add(s);
      System.out.println("ready " + s.getPort());
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> servers.forEach(Server::shutdownNow)));
    for (Server s : servers) {
      s.awaitTermination();
    }
  }
}
