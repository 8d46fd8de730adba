package dev.fairway.control;

import dev.fairway.config.HealthCheckSettings;
import dev.fairway.health.GrpcHealth;
import dev.fairway.proxy.wire.ForwardingRules;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.SocketAddress;

/**
 * One gRPC health check: {@code POST /grpc.health.v1.Health/Check} over HTTP/2 on a client made
 * for it (h2c with prior knowledge, or TLS with ALPN {@code h2}), the answer judged by
 * {@link GrpcHealth#verdict}.
 *
 * <p>Example: a grpc-java server whose {@code HealthStatusManager} says {@code NOT_SERVING} for
 * {@code ""} gives {@code CheckResult[status=200, lameDuck=false, loadReport=null,
 * failure="gRPC health: NOT_SERVING"]}; a server that speaks only HTTP/1.1 fails the call
 * before any answer: {@code status = 0}, the connection error as the failure. Lame duck and load
 * reports are read from the headers and the trailers alike.
 */
final class GrpcHealthCall {
  private GrpcHealthCall() {
  }

  /**
   * Runs the call on {@code http} to {@code host:port}, with {@code authority} as its
   * {@code :authority} (the configured {@code host}, else the TLS server name, else the address),
   * over TLS if {@code ssl}.
   */
  static Future<HealthChecker.CheckResult> run(HttpClientAgent http, String host, int port, String authority,
                                               boolean ssl, HealthCheckSettings settings) {
    long deadline = settings.timeoutMs();
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST)
        .setServer(SocketAddress.inetSocketAddress(port, host)).setHost(authority).setPort(port)
        .setSsl(ssl).setURI(GrpcHealth.PATH).setConnectTimeout(deadline).setIdleTimeout(deadline)
        .putHeader("content-type", "application/grpc").putHeader("te", "trailers")
        .putHeader("user-agent", HealthChecker.USER_AGENT);
    return http.request(options).compose(req -> {
      settings.host().ifPresent(h -> req.authority(HostAndPort.parseAuthority(h, port)));
      return req.send(Buffer.buffer(GrpcHealth.request(settings.grpcService().orElse(""))));
    }).compose(GrpcHealthCall::answer, GrpcHealthCall::connectionFailure);
  }

  /** Names the usual reason Netty's HTTP/2 codec gives for a backend that answers in HTTP/1.1. */
  private static Future<HealthChecker.CheckResult> connectionFailure(Throwable e) {
    String m = e.getMessage();
    return m != null && m.startsWith("First received frame was not SETTINGS")
        ? Future.failedFuture(GrpcHealth.PREFIX + "the backend does not speak HTTP/2 with prior knowledge (" + m + ")")
        : Future.failedFuture(e);
  }

  /** Reads at most {@value HealthChecker#MAX_BODY_BYTES} bytes of body, then the trailers. */
  private static Future<HealthChecker.CheckResult> answer(HttpClientResponse resp) {
    Promise<HealthChecker.CheckResult> done = Promise.promise();
    Buffer body = Buffer.buffer();
    resp.handler(b -> {
      if (body.length() + b.length() > HealthChecker.MAX_BODY_BYTES) {
        resp.request().reset();
        done.tryFail("gRPC health: answer over " + HealthChecker.MAX_BODY_BYTES + " bytes");
      } else {
        body.appendBuffer(b);
      }
    });
    resp.exceptionHandler(done::tryFail);
    resp.endHandler(v -> done.tryComplete(result(resp.statusCode(), resp.headers(), resp.trailers(), body)));
    return done.future();
  }

  private static HealthChecker.CheckResult result(int status, MultiMap headers, MultiMap trailers, Buffer body) {
    boolean trailersOnly = trailers.get("grpc-status") == null;
    MultiMap end = trailersOnly ? headers : trailers;
    String failure = GrpcHealth.verdict(new GrpcHealth.Answer(status, headers.get("content-type"),
        end.get("grpc-status"), end.get("grpc-message"), body.getBytes()));
    boolean lameDuck = "true".equalsIgnoreCase(headers.get(ForwardingRules.LAME_DUCK))
        || "true".equalsIgnoreCase(trailers.get(ForwardingRules.LAME_DUCK));
    String report = ForwardingRules.loadReport(first(ForwardingRules.LOAD_METRICS, trailers, headers),
        first(ForwardingRules.LOAD_METRICS_BIN, trailers, headers));
    return new HealthChecker.CheckResult(status, lameDuck, report, failure);
  }

  private static String first(String name, MultiMap a, MultiMap b) {
    String v = a.get(name);
    return v != null ? v : b.get(name);
  }
}
