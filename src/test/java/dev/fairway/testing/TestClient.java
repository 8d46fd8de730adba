package dev.fairway.testing;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import java.util.concurrent.TimeUnit;

/**
 * Blocking one-shot requests through a Vert.x HTTP client, for test threads.
 *
 * <p>Example: {@code TestClient.get(client, fairway.proxyPort(), "/")} is
 * {@code Reply[status=200, headers=..., body=b1]}; it fails after ten seconds without an answer.
 */
public final class TestClient {
  private TestClient() {
  }

  /** A complete response: status, header fields and the whole body as text. */
  public record Reply(int status, MultiMap headers, String body) {
  }

  /** {@code GET path} on 127.0.0.1:port, waiting at most ten seconds for the full body. */
  public static Reply get(HttpClient client, int port, String path) throws Exception {
    return client.request(HttpMethod.GET, port, "127.0.0.1", path)
        .compose(req -> req.send())
        .compose(resp -> resp.body().map(body -> reply(resp, body.toString())))
        .await(10, TimeUnit.SECONDS);
  }

  private static Reply reply(HttpClientResponse resp, String body) {
    return new Reply(resp.statusCode(), resp.headers(), body);
  }
}
