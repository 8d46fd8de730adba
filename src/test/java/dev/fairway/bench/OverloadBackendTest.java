package dev.fairway.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.testing.FreePorts;
import dev.fairway.testing.VertxTestBase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The bench backend's counters are what {@code bench/overload.sh} reports, so they are pinned
 * here against real requests: its capacity, its failure window, late and retried arrivals.
 */
class OverloadBackendTest extends VertxTestBase {
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @Test
  void beyondItsCapacityItAnswersBusyAndCountsLateAndRetriedArrivals() throws Exception {
    int port = OverloadBackend.start(vertx, flags("--ports 0 --work-ms 400 --capacity 2")).get(0);
    URI uri = URI.create("http://127.0.0.1:" + port + "/work");
    assertThat(get(URI.create("http://127.0.0.1:" + port + "/health")).statusCode()).isEqualTo(200);
    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    answers.add(http.sendAsync(HttpRequest.newBuilder(uri).header("X-Fairway-Attempt", "2").build(),
        HttpResponse.BodyHandlers.ofString()));
    answers.add(http.sendAsync(HttpRequest.newBuilder(uri).header("X-Client-Deadline-Epoch-Ms", "1").build(),
        HttpResponse.BodyHandlers.ofString()));
    answers.add(http.sendAsync(HttpRequest.newBuilder(uri).header("X-Fairway-Attempt", "1").build(),
        HttpResponse.BodyHandlers.ofString()));
    String statuses = answers.stream().map(CompletableFuture::join)
        .map(r -> r.statusCode() + r.headers().firstValue("Retry-After").map(v -> "/" + v).orElse(""))
        .sorted().collect(Collectors.joining(" "));

    assertThat(statuses).isEqualTo("200 200 503/1");
    assertThat(stats(port).lines().findFirst().orElseThrow())
        .isEqualTo("port " + port + " attempts 3 accepts 2 refused 0 busy 1 peak 2 late 1 retried 1");
  }

  @Test
  void whileFailingItAcceptsTheGivenShareEvenlySpreadAndCountsPerSecond() throws Exception {
    int free = FreePorts.one();
    int port = OverloadBackend.start(vertx, flags("--ports " + free + " --work-ms 1 --capacity 2 --fail-ports " + free
        + " --fail-from-s 0 --fail-until-s 60 --fail-accept-percent 25")).get(0);
    StringBuilder statuses = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      statuses.append(get(URI.create("http://127.0.0.1:" + port + "/")).statusCode()).append(' ');
    }

    assertThat(statuses.toString().trim()).isEqualTo("503 503 503 200 503 503 503 200");
    List<String> lines = stats(port).lines().toList();
    assertThat(lines.get(0)).isEqualTo("port " + port + " attempts 8 accepts 2 refused 6 busy 0 peak 1 late 0 retried 0");
    assertThat(lines.stream().skip(1).map(l -> l.split(" ")).map(f -> new long[] {Long.parseLong(f[2]), Long.parseLong(f[3])})
        .reduce((a, b) -> new long[] {a[0] + b[0], a[1] + b[1]}).map(t -> t[0] + " " + t[1])).contains("8 2");
  }

  private String stats(int port) throws Exception {
    return get(URI.create("http://127.0.0.1:" + port + "/__stats")).body();
  }

  private HttpResponse<String> get(URI uri) throws Exception {
    return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static Flags flags(String line) {
    return Flags.parse(line.split(" "));
  }
}
