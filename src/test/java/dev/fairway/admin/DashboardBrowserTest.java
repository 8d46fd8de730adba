package dev.fairway.admin;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fairway.Fairway;
import dev.fairway.testing.TestBackend;
import dev.fairway.testing.TestClient;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import dev.fairway.testing.TlsClient;
import dev.fairway.testing.TlsFiles;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real headless Chromium against a real Fairway under load: every backend has
 * a row, the active bar and requests/s move, and the lame-duck button (asking for the token, first
 * wrong, then right) puts a backend into lame duck. Saves {@code target/dashboard.png}. The TLS
 * panel says there is no TLS listener without {@code proxy.tls}; with one, its handshakes/s,
 * resumed/s and failures/s rise under real TLS clients (and garbage) and fall back once they stop.
 *
 * <p>Needs Debian's {@code chromium} and {@code chromium-driver} ({@code .ci/run} installs them);
 * skipped without {@code /usr/bin/chromedriver}. Selenium Manager is never asked for anything:
 * both the driver and the browser are given by path.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class DashboardBrowserTest {
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final String TOKEN = "test-token-0123456789";
  private static final List<String> WEB = List.of("b1", "b2", "b3");
  private static final List<String> API = List.of("a1", "a2");
  /** Selenium warns that it has no CDP classes for this Chromium; this test uses plain WebDriver only. */
  private static final Logger CDP_LOG = Logger.getLogger("org.openqa.selenium.devtools.CdpVersionFinder");

  private Vertx vertx;
  private HttpClientAgent client;
  private TestConfig config;
  private Fairway fairway;
  private WebDriver driver;
  private Path profile;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger answered = new AtomicInteger();
  private volatile long loadTimer = -1;

  @BeforeEach
  void setUp() throws IOException {
    assumeTrue(Files.isExecutable(CHROMEDRIVER) && Files.isExecutable(CHROMIUM),
        "needs Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)");
    vertx = Vertx.vertx();
    client = vertx.createHttpClient(new HttpClientOptions(), new PoolOptions().setHttp1MaxSize(64));
    // Slow enough that a modest rate keeps a few requests active on every backend.
    config = TestConfig.service("web", WEB.stream()
            .map(id -> backend(id, slowBackend(40).port(), 8)).toArray(JsonObject[]::new))
        .addService("api", "/api", API.stream()
            .map(id -> backend(id, slowBackend(15).port(), 4)).toArray(JsonObject[]::new))
        .strategy("least-loaded");

    CDP_LOG.setLevel(Level.SEVERE);
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
    profile = Files.createTempDirectory("fairway-chromium-");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", "--window-size=1280,820", "--user-data-dir=" + profile);
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
    driver = new ChromeDriver(service, options);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (driver != null) {
      driver.quit();
    }
    if (vertx != null) {
      vertx.cancelTimer(loadTimer);
      vertx.close().await(10, TimeUnit.SECONDS);
    }
    if (profile != null) {
      try (Stream<Path> files = Files.walk(profile)) {
        files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      }
    }
  }

  private TestBackend slowBackend(long workMs) {
    return TestBackend.start(vertx, req -> vertx.setTimer(workMs, t -> req.response().end("ok")));
  }

  /** About 200 requests/s through the proxy, two thirds to {@code web}, at most 40 in flight. */
  private void startLoad() throws Exception {
    AtomicInteger tick = new AtomicInteger();
    loadTimer = TestClient.onLoop(vertx, () -> Future.succeededFuture(vertx.setPeriodic(5, id -> {
      if (inFlight.get() >= 40) {
        return;
      }
      inFlight.incrementAndGet();
      String path = tick.incrementAndGet() % 3 == 0 ? "/api/x" : "/";
      client.request(HttpMethod.GET, fairway.proxyPort(), "127.0.0.1", path)
          .compose(req -> req.send()).compose(resp -> resp.body())
          .onComplete(ar -> {
            inFlight.decrementAndGet();
            if (ar.succeeded()) {
              answered.incrementAndGet();
            }
          });
    }))).await(5, TimeUnit.SECONDS);
  }

  private WebElement row(String service, String id) {
    return driver.findElement(By.cssSelector("tr[data-service='" + service + "'][data-backend='" + id + "']"));
  }

  private static int active(WebElement row) {
    String text = row.findElement(By.cssSelector(".active-text")).getText(); // "3 / 8"
    return Integer.parseInt(text.substring(0, text.indexOf('/')).trim());
  }

  private static double qps(WebElement row) {
    return Double.parseDouble(row.findElement(By.cssSelector(".qps-value")).getText());
  }

  private static String state(WebElement row) {
    return row.findElement(By.cssSelector(".state")).getText();
  }

  private WebDriverWait waitUpTo(int seconds) {
    return new WebDriverWait(driver, Duration.ofSeconds(seconds), Duration.ofMillis(100));
  }

  private String apiState(String id) throws Exception {
    String body = TestClient.get(vertx, client, fairway.adminPort(), "/api/services").body();
    for (Object s : new JsonArray(body)) {
      for (Object b : ((JsonObject) s).getJsonArray("backends")) {
        if (((JsonObject) b).getString("id").equals(id)) {
          return ((JsonObject) b).getString("state");
        }
      }
    }
    return null;
  }

  @Test
  void showsLiveLoadAndPutsABackendIntoLameDuck() throws Exception {
    fairway = TestFairway.start(vertx, config.build());
    driver.get("http://127.0.0.1:" + fairway.adminPort() + "/");
    WebElement noTls = driver.findElement(By.id("tls-none"));
    waitUpTo(10).until(d -> noTls.isDisplayed());
    assertThat(noTls.getText()).contains("No TLS listener");
    assertThat(driver.findElement(By.id("tls-table")).isDisplayed()).isFalse();

    // Every backend of both services gets its row, idle before any traffic.
    waitUpTo(10).until(d -> d.findElements(By.cssSelector("tr[data-backend]")).size() == WEB.size() + API.size());
    // Each service shows its overload control: the throttle's refusal probability, refused, shed and retried per second.
    waitUpTo(10).until(d -> d.findElement(By.cssSelector("section[data-service='web'] .facts")).getText()
        .matches("(?s).*throttle 0%.*throttled/s 0\\.00.*shed/s 0\\.00.*retries/s 0\\.00.*"));
    for (String id : WEB) {
      assertThat(state(row("web", id))).isEqualTo("healthy");
      assertThat(active(row("web", id))).isZero();
      assertThat(qps(row("web", id))).isZero();
    }
    for (String id : API) {
      assertThat(row("api", id).findElement(By.cssSelector(".backend-id")).getText()).isEqualTo(id);
      assertThat(row("api", id).findElement(By.cssSelector(".source")).getText()).as("where it comes from")
          .isEqualTo("config");
    }

    // Under load the active bars fill and requests/s climb, refreshed by the page's own polling.
    startLoad();
    int[] peakActive = new int[1];
    waitUpTo(15).until(d -> {
      int sum = WEB.stream().mapToInt(id -> active(row("web", id))).sum();
      peakActive[0] = Math.max(peakActive[0], sum);
      return peakActive[0] > 0 && WEB.stream().allMatch(id -> qps(row("web", id)) > 5)
          && API.stream().allMatch(id -> qps(row("api", id)) > 1);
    });
    assertThat(answered.get()).isPositive();
    assertThat(peakActive[0]).isPositive();
    String width = waitUpTo(5).until(d -> {
      String w = row("web", "b1").findElement(By.cssSelector(".bar-fill")).getCssValue("width");
      return w.equals("0px") ? null : w;
    });
    assertThat(width).endsWith("px");

    // Lame duck through the page: a wrong token is refused with a visible 401, the right one works.
    WebElement b2 = row("web", "b2");
    WebElement button = b2.findElement(By.cssSelector(".lame-duck-btn"));
    assertThat(button.getText()).isEqualTo("Lame duck");
    button.click();
    WebElement dialog = driver.findElement(By.id("token-dialog"));
    waitUpTo(5).until(d -> dialog.isDisplayed());
    driver.findElement(By.id("token-input")).sendKeys("not-the-token");
    driver.findElement(By.id("token-send")).click();
    WebElement message = driver.findElement(By.id("message"));
    waitUpTo(5).until(d -> message.isDisplayed() && message.getText().contains("401"));
    waitUpTo(5).until(d -> dialog.isDisplayed());
    assertThat(state(b2)).isEqualTo("healthy");
    assertThat(apiState("b2")).isEqualTo("healthy");

    driver.findElement(By.id("token-input")).sendKeys(TOKEN);
    driver.findElement(By.id("token-send")).click();
    waitUpTo(5).until(d -> state(b2).equals("lame-duck"));
    assertThat(apiState("b2")).isEqualTo("lame-duck");
    assertThat(b2.findElement(By.cssSelector(".state")).getAttribute("class")).contains("lame-duck");
    assertThat(button.getText()).isEqualTo("Resume");
    assertThat(state(row("web", "b1"))).isEqualTo("healthy");

    // The accepted token is kept for this tab, so the next action does not ask again.
    assertThat(((ChromeDriver) driver).executeScript("return sessionStorage.getItem('fairway.adminToken')"))
        .isEqualTo(TOKEN);

    // A couple more samples so the sparklines show the lame duck's requests/s falling.
    Thread.sleep(2_000);
    byte[] png = ((ChromeDriver) driver).getScreenshotAs(OutputType.BYTES);
    Path shot = Path.of("target", "dashboard.png");
    Files.createDirectories(shot.getParent());
    Files.write(shot, png);
    assertThat(png.length).isGreaterThan(10_000);
  }

  @Test
  void showsTlsHandshakesResumedAndFailuresPerSecond() throws Exception {
    fairway = TestFairway.start(vertx, config.proxy("tls", TlsFiles.tls("a")).build());
    driver.get("http://127.0.0.1:" + fairway.adminPort() + "/");
    WebElement tls = waitUpTo(10).until(d -> d.findElements(By.cssSelector("#tls tr[data-listener='tls']")).stream()
        .findFirst().orElse(null));
    assertThat(driver.findElement(By.id("tls-none")).isDisplayed()).isFalse();
    waitUpTo(5).until(d -> tls.findElement(By.cssSelector(".tls-totals")).getText()
        .equals("0 handshakes, 0 resumed, 0 failed"));
    assertThat(tlsRate(tls, "tls-handshakes")).isZero();

    // Real handshakes: a JDK client reusing its context (so every connection after the first
    // resumes), and a client that sends half a ClientHello and hangs up (a failure).
    AtomicInteger handshakes = new AtomicInteger();
    Thread load = new Thread(() -> tlsLoad(fairway.tlsPort(), handshakes), "tls-load");
    load.start();
    try {
      waitUpTo(20).until(d -> tlsRate(tls, "tls-handshakes") > 0 && tlsRate(tls, "tls-resumed") > 0
          && tlsRate(tls, "tls-failures") > 0);
    } finally {
      load.interrupt();
      load.join(10_000);
    }
    assertThat(handshakes.get()).isPositive();
    assertThat(tls.findElement(By.cssSelector(".tls-totals")).getText()).matches("[1-9]\\d* handshakes, [1-9]\\d* resumed, [1-9]\\d* failed");

    // Once the clients stop, the rates fall back to zero.
    waitUpTo(10).until(d -> tlsRate(tls, "tls-handshakes") == 0 && tlsRate(tls, "tls-failures") == 0);
  }

  private static double tlsRate(WebElement row, String cell) {
    return Double.parseDouble(row.findElement(By.cssSelector("." + cell + " .spark-value")).getText());
  }

  /** New TLS connections (each sends one request) and half-handshakes, every 20 ms until interrupted. */
  private static void tlsLoad(int port, AtomicInteger handshakes) {
    try {
      SSLContext ctx = TlsClient.context(false);
      while (!Thread.currentThread().isInterrupted()) {
        try (SSLSocket s = TlsClient.connect(ctx, port, "a.test")) {
          TlsClient.get(s, "/");
          handshakes.incrementAndGet();
        }
        try (Socket garbage = new Socket()) {
          garbage.connect(new InetSocketAddress("127.0.0.1", port), 5000);
          OutputStream out = garbage.getOutputStream();
          out.write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00});
          out.flush();
        }
        Thread.sleep(20);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
