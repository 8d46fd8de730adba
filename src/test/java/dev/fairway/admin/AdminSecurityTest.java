package dev.fairway.admin;

import static dev.fairway.testing.TestConfig.backend;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fairway.Fairway;
import dev.fairway.testing.RawHttp;
import dev.fairway.testing.TestConfig;
import dev.fairway.testing.TestFairway;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * Admin listener security: bearer token on every mutation, weak tokens warned about and, off
 * loopback, refused; mutations only by POST and DELETE; no CORS headers.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class AdminSecurityTest {
  private static final String LAME_DUCK =
      "POST /api/backends/b/lame-duck HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n";

  private Fairway start(Vertx vertx, String host, String token) {
    TestConfig c = TestConfig.service("web", backend("b", 1, 1));
    c.json().getJsonObject("admin").put("host", host).put("token", token);
    return TestFairway.start(vertx, c.build());
  }

  @Test
  void weakTokensAreNamed() {
    assertThat(AdminSecurity.weakness("change-me")).contains("the shipped placeholder change-me");
    assertThat(AdminSecurity.weakness("short-token")).contains("shorter than 16 characters");
    assertThat(AdminSecurity.weakness("a-long-random-secret-0123")).isEmpty();
    assertThat(AdminSecurity.isLoopback("127.0.0.1")).isTrue();
    assertThat(AdminSecurity.isLoopback("::1")).isTrue();
    assertThat(AdminSecurity.isLoopback("localhost")).isTrue();
    assertThat(AdminSecurity.isLoopback("0.0.0.0")).isFalse();
    assertThat(AdminSecurity.isLoopback("admin.example")).isFalse();
  }

  @Test
  void weakTokenIsWarnedAboutAtStartUp(Vertx vertx) {
    Logger logger = (Logger) LoggerFactory.getLogger(AdminVerticle.class);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    try {
      start(vertx, "127.0.0.1", "change-me");
    } finally {
      logger.detachAppender(logs);
    }
    assertThat(logs.list).anySatisfy(e -> assertThat(e.getFormattedMessage())
        .contains("admin token is weak (the shipped placeholder change-me)"));
  }

  @Test
  void weakTokenWorksOnLoopback(Vertx vertx) throws Exception {
    Fairway loopback = start(vertx, "127.0.0.1", "change-me");
    assertThat(RawHttp.exchange(loopback.adminPort(), LAME_DUCK + "Authorization: Bearer change-me\r\n\r\n").status())
        .isEqualTo(200);
  }

  @Test
  void weakTokenIsRefusedWhenExposed(Vertx vertx) throws Exception {
    Fairway exposed = start(vertx, "0.0.0.0", "change-me");
    RawHttp.Response r = RawHttp.exchange(exposed.adminPort(), LAME_DUCK + "Authorization: Bearer change-me\r\n\r\n");
    assertThat(r.status()).isEqualTo(403);
    assertThat(r.body()).contains("admin token is the shipped placeholder change-me")
        .contains("not on loopback");
  }

  @Test
  void strongTokenWorksWhenExposed(Vertx vertx) throws Exception {
    Fairway exposed = start(vertx, "0.0.0.0", "a-long-random-secret-0123");
    assertThat(RawHttp.exchange(exposed.adminPort(), LAME_DUCK + "Authorization: Bearer a-long-random-secret-0123\r\n\r\n")
        .status()).isEqualTo(200);
    assertThat(RawHttp.exchange(exposed.adminPort(), LAME_DUCK + "Authorization: Bearer wrong\r\n\r\n").status())
        .isEqualTo(401);
    assertThat(RawHttp.exchange(exposed.adminPort(), LAME_DUCK + "\r\n").status()).isEqualTo(401);
  }

  @Test
  void mutationsArePostOrDeleteOnly(Vertx vertx) throws Exception {
    Fairway f = start(vertx, "127.0.0.1", "test-token-0123456789");
    for (String method : new String[] {"PUT", "PATCH"}) {
      RawHttp.Response r = RawHttp.exchange(f.adminPort(), method + " /api/backends/b/lame-duck HTTP/1.1\r\n"
          + "Host: 127.0.0.1\r\nAuthorization: Bearer test-token-0123456789\r\nContent-Length: 0\r\n\r\n");
      assertThat(r.status()).isEqualTo(405);
      assertThat(r.all("Allow")).containsExactly("GET, POST, DELETE");
    }
  }

  @Test
  void corsIsNotOpened(Vertx vertx) throws Exception {
    Fairway f = start(vertx, "127.0.0.1", "test-token-0123456789");
    RawHttp.Response preflight = RawHttp.exchange(f.adminPort(), "OPTIONS /api/backends/b/lame-duck HTTP/1.1\r\n"
        + "Host: 127.0.0.1\r\nOrigin: http://evil.example\r\nAccess-Control-Request-Method: POST\r\n\r\n");
    RawHttp.Response get = RawHttp.exchange(f.adminPort(), "GET /api/services HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Origin: http://evil.example\r\n\r\n");
    for (RawHttp.Response r : new RawHttp.Response[] {preflight, get}) {
      assertThat(r.names()).noneMatch(n -> n.startsWith("access-control-"));
    }
  }
}
