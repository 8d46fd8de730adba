package dev.fairway.admin;

import dev.fairway.config.AdminSettings;
import dev.fairway.control.Addresses;
import dev.fairway.control.BalancerCommand;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.StaticHandler;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.JsonArray;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.Optional;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin listener: the JSON API, the proxy's own health, metrics and the dashboard.
 *
 * <p>Example: {@code curl 127.0.0.1:9090/api/services} lists each service with its backends'
 * state, active requests and capacity; {@code GET /health} is 200 while serving and 503 while
 * this proxy drains; a browser at {@code http://127.0.0.1:9090/} shows the live dashboard, static
 * files from the jar's {@code webroot/} that poll {@code /api/services} every second. Every route
 * answers only a {@code Host} that {@link AllowedHosts} allows ({@code curl -H 'Host: evil.example'}
 * gets 403), so a page re-bound to the admin address by DNS reads nothing.
 */
public final class AdminVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(AdminVerticle.class);
  private final AdminSettings settings;
  private final PrometheusMeterRegistry registry;
  private final BooleanSupplier draining;
  private final IntConsumer onListening;
  private HttpServer server;

  /**
   * @param settings    admin listener settings
   * @param registry    the meters served at {@code GET /metrics}
   * @param draining    whether this proxy is shutting down
   * @param onListening told the actual port once listening
   */
  public AdminVerticle(AdminSettings settings, PrometheusMeterRegistry registry, BooleanSupplier draining,
                       IntConsumer onListening) {
    this.settings = settings;
    this.registry = registry;
    this.draining = draining;
    this.onListening = onListening;
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
    // First, for every route and method: a Host naming another site is a DNS-rebinding page.
    AllowedHosts hosts = AllowedHosts.of(settings.host(), settings.allowedHosts());
    router.route().handler(rc -> hosts.refusal(hostFields(rc.request()))
        .ifPresentOrElse(reason -> plain(rc, 403, reason), rc::next));
    router.get("/health").handler(this::health);
    router.get("/api/services").handler(this::services);
    router.get("/metrics").handler(this::metrics);
    BearerAuth auth = new BearerAuth(settings.token());
    Optional<String> weakness = AdminSecurity.weakness(settings.token());
    boolean exposed = !AdminSecurity.isLoopback(settings.host());
    weakness.ifPresent(w -> LOG.warn("admin token is weak ({}): set admin.token or {} to a long random secret{}", w,
        dev.fairway.config.ConfigParser.ADMIN_TOKEN_ENV,
        exposed ? "; admin mutations are refused while the admin listener is not on loopback" : ""));
    // Mutations are POST and DELETE only; no CORS headers are ever sent (browsers on other origins get nothing).
    router.route("/api/*").method(HttpMethod.PUT).method(HttpMethod.PATCH).handler(rc -> {
      rc.response().putHeader("Allow", "GET, POST, DELETE");
      plain(rc, 405, "admin mutations are POST or DELETE");
    });
    router.route("/api/*").method(HttpMethod.POST).method(HttpMethod.DELETE).handler(rc -> {
          if (weakness.isPresent() && exposed) {
            plain(rc, 403, "admin token is " + weakness.get() + " and the admin listener is not on loopback: "
                + "set a token of at least " + AdminSecurity.MIN_TOKEN_LENGTH + " characters");
          } else if (auth.allows(rc.request().getHeader(HttpHeaders.AUTHORIZATION))) {
            rc.next();
          } else {
            rc.response().putHeader("WWW-Authenticate", "Bearer");
            plain(rc, 401, "missing or wrong bearer token");
          }
        });
    router.post("/api/backends/:id/lame-duck").handler(rc -> command(rc, 200,
        new BalancerCommand.LameDuck(rc.pathParam("id"), true)));
    router.delete("/api/backends/:id/lame-duck").handler(rc -> command(rc, 200,
        new BalancerCommand.LameDuck(rc.pathParam("id"), false)));
    router.post("/api/services/:name/backends").handler(BodyHandler.create().setBodyLimit(1 << 20))
        .handler(this::addBackends);
    router.delete("/api/services/:name/backends/:id").handler(rc -> command(rc, 200,
        new BalancerCommand.RemoveBackend(rc.pathParam("name"), rc.pathParam("id"))));
    // Last, so it never shadows the routes above: GET / is webroot/index.html.
    router.get("/*").handler(StaticHandler.create("webroot").setCachingEnabled(false)
        .setDirectoryListing(false).setIncludeHidden(false));
    server = vertx.createHttpServer().requestHandler(request -> {
      if (request.version() == HttpVersion.HTTP_1_1 && request.authority() == null) {
        // RFC 9112 §3.2: 400. Answered here: the router would log each one as an unhandled error.
        request.response().setStatusCode(400).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
            .putHeader(HttpHeaders.CONNECTION, "close").end("missing or malformed Host header\n");
      } else {
        router.handle(request);
      }
    });
    return server.listen(settings.port(), settings.host()).onSuccess(s -> onListening.accept(s.actualPort()));
  }

  /** The request's {@code Host} values; over HTTP/2 (h2c), where {@code :authority} replaces Host, that. */
  private static List<String> hostFields(HttpServerRequest request) {
    if (request.version() == HttpVersion.HTTP_2 && request.authority() != null) {
      return List.of(request.authority().toString());
    }
    return request.headers().getAll(HttpHeaders.HOST);
  }

  private void health(RoutingContext rc) {
    boolean drainingNow = draining.getAsBoolean();
    rc.response().setStatusCode(drainingNow ? 503 : 200)
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
        .end(drainingNow ? "draining\n" : "ok\n");
  }

  private void addBackends(RoutingContext rc) {
    Object body;
    try {
      body = Json.decodeValue(rc.body().asString());
    } catch (RuntimeException e) {
      plain(rc, 400, "body is not valid JSON; expected an array of {\"url\", \"capacity\", \"id\"?, \"weight\"?}");
      return;
    }
    command(rc, 201, new BalancerCommand.AddBackends(rc.pathParam("name"), body));
  }

  /** Sends a command to the balancer and maps its answer (or failure code) to the response. */
  private void command(RoutingContext rc, int okStatus, BalancerCommand cmd) {
    vertx.eventBus().request(Addresses.COMMANDS, cmd.toJson()).onComplete(ar -> {
      if (ar.succeeded()) {
        Object reply = ar.result().body();
        String status = ar.result().headers().get(Addresses.STATUS_HEADER);
        rc.response().setStatusCode(status == null ? okStatus : Integer.parseInt(status)).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
            .end(reply instanceof JsonObject o ? o.encodePrettily() : ((JsonArray) reply).encodePrettily());
      } else if (ar.cause() instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE) {
        plain(rc, re.failureCode(), re.getMessage());
      } else {
        plain(rc, 503, "balancer did not answer: " + ar.cause().getMessage());
      }
    });
  }

  private static void plain(RoutingContext rc, int status, String line) {
    rc.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
        .end(line + "\n");
  }

  private void metrics(RoutingContext rc) {
    rc.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")
        .end(registry.scrape());
  }

  private void services(RoutingContext rc) {
    vertx.eventBus().<JsonArray>request(Addresses.SERVICES, null).onComplete(ar -> {
      if (ar.failed()) {
        rc.response().setStatusCode(500).end("balancer did not answer: " + ar.cause().getMessage() + "\n");
        return;
      }
      rc.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(ar.result().body().encodePrettily());
    });
  }
}
