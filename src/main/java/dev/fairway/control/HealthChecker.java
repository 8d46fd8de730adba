package dev.fairway.control;

import dev.fairway.config.FileSnapshot;
import dev.fairway.config.HealthCheckSettings;
import dev.fairway.config.HealthExpectation;
import dev.fairway.config.UpstreamTls;
import dev.fairway.proxy.upstream.UpstreamTlsContexts;
import dev.fairway.proxy.wire.ForwardingRules;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * Runs one active health check with the Vert.x WebClient: {@code GET path} on the backend, bounded
 * by {@code timeoutMs}, judged by the service's {@link HealthExpectation}. Redirects are not
 * followed; only the first {@value #MAX_BODY_BYTES} bytes of a body are kept, and only when
 * {@code expectBody} is set.
 *
 * <p>Example: a backend answering {@code 200} with {@code Lame-Duck: true} and
 * {@code endpoint-load-metrics: TEXT cpu_utilization=0.4} yields
 * {@code CheckResult[status=200, lameDuck=true, loadReport="TEXT cpu_utilization=0.4", failure=null]};
 * with {@code expectStatus "200-299"} a {@code 503} yields {@code failure="status 503 not in 200-299"};
 * a refused connection yields {@code status = 0} and {@code failure="connection refused"}. An
 * {@code https://} backend is checked over TLS with its service's {@code tls} settings; a
 * certificate that does not verify yields {@code status = 0} and the TLS error as the failure.
 * With {@code type: "grpc"} the check is the gRPC health call instead ({@link GrpcHealthCall}),
 * over HTTP/2: h2c with prior knowledge, or ALPN {@code h2} for an {@code https://} backend.
 */
final class HealthChecker {
  /** The most of a body kept to look for {@code expectBody} in. */
  static final int MAX_BODY_BYTES = 64 * 1024;
  static final String USER_AGENT = "fairway-health-check";
  /** How long a replaced TLS client may finish its checks before it closes. */
  private static final long SHUTDOWN_SECONDS = 5;

  private final Vertx vertx;
  private final WebClient client;
  /** The client of gRPC checks of cleartext backends: HTTP/2 with prior knowledge. */
  private final HttpClientAgent grpc;
  /** The same client for HTTP checks of {@code h2c://} backends. */
  private final WebClient h2cClient;
  private final UpstreamTlsContexts contexts;
  /** One client per TLS profile of {@code https://} backends (and SNI or not), replaced when the profile's files change. */
  private final Map<TlsKey, TlsClient> tlsClients = new HashMap<>();
  /** The HTTP clients under the web clients, to close. */
  private final List<HttpClientAgent> httpClients = new ArrayList<>();

  /**
   * A client's profile, whether it sends SNI (a host name does, an IP address does not) and
   * whether it speaks HTTP/2 (for gRPC checks).
   */
  private record TlsKey(UpstreamTls profile, boolean sni, boolean h2) {
  }

  /** A client, its HTTP client and the profile files it was made from. */
  private record TlsClient(FileSnapshot files, WebClient web, HttpClientAgent http) {
  }

  /**
   * Makes its HTTP clients (keep-alive off, user agent {@value #USER_AGENT}) on {@code vertx}.
   *
   * @param contexts the proxy's backend TLS contexts, whose files the checks of {@code https://} backends use too
   */
  HealthChecker(Vertx vertx, UpstreamTlsContexts contexts) {
    this.vertx = vertx;
    this.contexts = contexts;
    this.client = WebClient.wrap(http(new HttpClientOptions().setKeepAlive(false).setName("fairway-health")),
        new WebClientOptions().setUserAgent(USER_AGENT).setFollowRedirects(false));
    this.grpc = http(new HttpClientOptions().setKeepAlive(false).setName("fairway-health-grpc")
        .setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false));
    this.h2cClient = WebClient.wrap(grpc, new WebClientOptions().setUserAgent(USER_AGENT).setFollowRedirects(false));
  }

  private HttpClientAgent http(HttpClientOptions options) {
    HttpClientAgent http = vertx.createHttpClient(options);
    httpClients.add(http);
    return http;
  }

  /**
   * The client of an {@code https://} backend's checks: the same CA, client certificate and key
   * bytes as the proxy's own connections to it use now ({@link UpstreamTlsContexts#files}), the
   * same verification and ALPN ({@code http/1.1}, or {@code h2} for gRPC checks), and SNI exactly
   * when they send it: for any host name, {@code localhost} included, never for an IP address.
   * Made again when the profile's files change; the previous client finishes its checks and closes.
   */
  private Future<TlsClient> tlsClient(UpstreamTls tls, String serverName, boolean h2) {
    TlsKey key = new TlsKey(tls, UpstreamTls.sendsSni(serverName), h2);
    return Future.fromCompletionStage(contexts.files(tls), vertx.getOrCreateContext()).map(files -> {
      TlsClient c = tlsClients.get(key);
      if (c != null && c.files() == files) {
        return c;
      }
      if (c != null) {
        httpClients.remove(c.http());
        c.http().shutdown(SHUTDOWN_SECONDS, TimeUnit.SECONDS);
      }
      HttpClientOptions options;
      try {
        options = options(tls, key.sni(), h2, files);
      } catch (IOException e) {
        throw new UncheckedIOException(e); // fails this check with the file's name and reason
      }
      HttpClientAgent http = http(options);
      TlsClient made = new TlsClient(files, WebClient.wrap(http,
          new WebClientOptions().setUserAgent(USER_AGENT).setFollowRedirects(false)), http);
      tlsClients.put(key, made);
      return made;
    });
  }

  private static HttpClientOptions options(UpstreamTls t, boolean sni, boolean h2, FileSnapshot files)
      throws IOException {
    HttpVersion version = h2 ? HttpVersion.HTTP_2 : HttpVersion.HTTP_1_1;
    HttpClientOptions o = new HttpClientOptions().setKeepAlive(false).setName("fairway-health-tls").setSsl(true)
        .setVerifyHost(t.verify()).setTrustAll(!t.verify()).setUseAlpn(true).setProtocolVersion(version)
        .setAlpnVersions(List.of(version)).setForceSni(sni);
    if (t.verify() && t.caPath().isPresent()) {
      o.setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(files.bytes(t.caPath().get()))));
    }
    if (t.mutual()) {
      o.setKeyCertOptions(new PemKeyCertOptions().setCertValue(Buffer.buffer(files.bytes(t.certPath().orElseThrow())))
          .setKeyValue(Buffer.buffer(files.bytes(t.keyPath().orElseThrow()))));
    }
    return o;
  }

  /** Closes the TLS clients of profiles not in {@code active} (after a config reload). */
  void retain(Collection<UpstreamTls> active) {
    Set<UpstreamTls> keep = Set.copyOf(active);
    tlsClients.entrySet().removeIf(e -> {
      if (keep.contains(e.getKey().profile())) {
        return false;
      }
      httpClients.remove(e.getValue().http());
      e.getValue().http().shutdown(SHUTDOWN_SECONDS, TimeUnit.SECONDS);
      return true;
    });
  }

  /** Closes every client. */
  Future<?> close() {
    List<Future<?>> closing = new ArrayList<>();
    httpClients.forEach(c -> closing.add(c.close()));
    httpClients.clear();
    tlsClients.clear();
    return Future.join(closing);
  }

  /**
   * @param status     HTTP status, or 0 when no response arrived
   * @param lameDuck   whether {@code Lame-Duck: true} came with it
   * @param loadReport the load report, as {@link ForwardingRules#loadReport} gives it, or {@code null}
   * @param failure    why no response arrived, or why the response failed the expectation
   *                   (e.g. {@code status 503 not in 200-299}, {@code body lacks "ok"}); {@code null}
   *                   when it met it
   */
  record CheckResult(int status, boolean lameDuck, String loadReport, String failure) {
    /** Whether the check passed: a response that met the expectation, without {@code Lame-Duck: true}. */
    boolean passed() {
      return status != 0 && failure == null && !lameDuck;
    }
  }

  /**
   * Checks {@code host:port}; with a TLS profile ({@code tls} not null) over TLS, connecting to
   * {@code host} but asking for and verifying {@code serverName} (the request's host, so also the
   * default {@code Host}); an {@code h2c://} backend's HTTP check speaks HTTP/2 with prior knowledge.
   */
  Future<CheckResult> check(String host, int port, HealthCheckSettings settings, UpstreamTls tls, boolean h2c) {
    long deadline = settings.timeoutMs();
    return (settings.grpc() ? grpcCheck(host, port, settings, tls) : httpCheck(host, port, settings, tls, h2c))
        .timeout(deadline, TimeUnit.MILLISECONDS)
        .recover(e -> Future.succeededFuture(new CheckResult(0, false, null, describe(e, deadline))));
  }

  /** A gRPC check ({@link GrpcHealthCall}): h2c with prior knowledge, or TLS with ALPN {@code h2}. */
  private Future<CheckResult> grpcCheck(String host, int port, HealthCheckSettings settings, UpstreamTls tls) {
    String authority = tls == null ? host : tls.serverNameFor(host);
    Future<HttpClientAgent> http = tls == null ? Future.succeededFuture(grpc)
        : tlsClient(tls, authority, true).map(TlsClient::http);
    return http.compose(h -> GrpcHealthCall.run(h, host, port, authority, tls != null, settings));
  }

  private Future<CheckResult> httpCheck(String host, int port, HealthCheckSettings settings, UpstreamTls tls,
                                         boolean h2c) {
    HealthExpectation expect = settings.expect();
    long deadline = settings.timeoutMs();
    Future<HttpRequest<Buffer>> plain = tls == null ? Future.succeededFuture((h2c ? h2cClient : client).get(port, host, settings.path()))
        : tlsClient(tls, tls.serverNameFor(host), false).map(TlsClient::web).map(c -> c.request(HttpMethod.GET,
            SocketAddress.inetSocketAddress(port, host), port, tls.serverNameFor(host), settings.path()).ssl(true));
    return plain.compose(p -> {
      HttpRequest<String> request = p.connectTimeout(deadline).idleTimeout(deadline)
          .as(new BoundedBodyCodec(expect.needsBody() ? MAX_BODY_BYTES : 0));
      settings.host().ifPresent(h -> request.putHeader("host", h));
      return request.send();
    })
        .map((HttpResponse<String> resp) -> new CheckResult(resp.statusCode(),
            "true".equalsIgnoreCase(resp.getHeader(ForwardingRules.LAME_DUCK)),
            ForwardingRules.loadReport(resp.getHeader(ForwardingRules.LOAD_METRICS), resp.getHeader(ForwardingRules.LOAD_METRICS_BIN)),
            expect.unmet(resp.statusCode(), resp.body()).orElse(null)));
  }

  private static String describe(Throwable e, long timeoutMs) {
    String name = e.getClass().getSimpleName();
    String msg = e.getMessage() == null ? "" : e.getMessage();
    if (name.contains("Timeout") || msg.contains("timeout") || msg.contains("Timeout")) {
      return "timeout after " + timeoutMs + " ms";
    }
    if (msg.contains("Connection refused")) {
      return "connection refused";
    }
    String tls = null; // the innermost TLS error says most (an untrusted chain, a wrong name)
    for (Throwable c = e; c != null && c.getCause() != c; c = c.getCause()) {
      if (c instanceof SSLException && c.getMessage() != null) {
        tls = c.getMessage();
      }
    }
    if (tls != null) {
      return "TLS: " + tls;
    }
    return msg.isEmpty() ? name : msg;
  }
}
