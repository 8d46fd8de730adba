package dev.fairway.proxy.upstream;

import dev.fairway.config.UpstreamTls;
import dev.fairway.proxy.tls.TlsProvider;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * The client-side TLS contexts of the process, one per distinct {@link UpstreamTls} profile, made
 * on first use off the event loops ({@link #prepare}: reading its few PEM files once) and shared by
 * every event loop; and the {@link SslHandler} that starts a backend connection's pipeline.
 *
 * <p>Example: services {@code a} and {@code b} both with {@code {"caPath": "ca.pem"}} share one
 * context; a connection to {@code https://127.0.0.1:9443} of service {@code a} with
 * {@code "serverName": "api.internal"} gets a handler whose engine sends SNI {@code api.internal},
 * checks that the certificate names {@code api.internal} and chains up to {@code ca.pem}, and
 * offers ALPN {@code http/1.1}. With {@code "verify": false} any certificate is accepted and no
 * name is checked.
 *
 * <p>The provider is the listener's, {@link TlsProvider}'s choice, kept in {@link #PROVIDER}.
 */
public final class UpstreamTlsContexts {
  /** The TLS implementation of backend connections. */
  static final SslProvider PROVIDER = TlsProvider.fromSystem().provider();

  /**
   * What ALPN offers a backend: what the upstream protocol allows. Today that is HTTP/1.1 only;
   * HTTP/2 to backends would add {@code h2} here, per profile.
   */
  static final List<String> ALPN = List.of(ApplicationProtocolNames.HTTP_1_1);

  private final Map<UpstreamTls, SslContext> contexts = new ConcurrentHashMap<>();
  /** A profile's distinct tag and the pool key of each address with it, each made once. */
  private record PoolKeys(String tag, Map<String, String> byAddress) {
  }

  private final Map<UpstreamTls, PoolKeys> poolKeys = new ConcurrentHashMap<>();
  private final AtomicInteger nextTag = new AtomicInteger();

  /**
   * The key of the pool of idle connections to {@code address} ({@code host:port}) with
   * {@code profile}: the address itself for cleartext ({@code profile} null), else the address and
   * the profile's tag, so that cleartext connections and those of different profiles never mix.
   */
  public String poolKey(String address, UpstreamTls profile) {
    if (profile == null) {
      return address;
    }
    PoolKeys keys = poolKeys.get(profile);
    if (keys == null) {
      keys = poolKeys.computeIfAbsent(profile,
          p -> new PoolKeys("|tls" + nextTag.getAndIncrement(), new ConcurrentHashMap<>()));
    }
    String key = keys.byAddress().get(address); // made once per address: no string built per request
    if (key == null) {
      String tag = keys.tag();
      key = keys.byAddress().computeIfAbsent(address, a -> a + tag);
    }
    return key;
  }

  /**
   * A client {@link SslHandler} for a connection to {@code host:port} of a backend with
   * {@code profile}: SNI and host-name check against {@code serverName} (or {@code host}),
   * handshake bounded by {@code handshakeMs}.
   *
   * @throws SSLException if the profile's files cannot be read or used
   */
  SslHandler handler(UpstreamTls profile, ByteBufAllocator alloc, String host, int port, long handshakeMs)
      throws SSLException {
    String name = profile.serverNameFor(host);
    SslHandler h = context(profile).newHandler(alloc, name, port);
    h.setHandshakeTimeoutMillis(handshakeMs);
    if (UpstreamTls.sendsSni(name)) { // the JDK sends no SNI for a name without a dot: set it
      try {
        SSLParameters p = h.engine().getSSLParameters();
        p.setServerNames(List.of(new SNIHostName(name)));
        h.engine().setSSLParameters(p);
      } catch (IllegalArgumentException notAnSniName) {
        // a name SNI cannot carry (an underscore, say): none is sent, the name is still verified
      }
    }
    return h;
  }

  /** Whether the context of {@code profile} is made, so that a connection can start at once. */
  boolean ready(UpstreamTls profile) {
    return contexts.containsKey(profile);
  }

  /**
   * Makes the context of {@code profile} off the event loops (reading its files and perhaps the
   * JVM's trust store takes milliseconds), then tells {@code done} on {@code loop}: {@code null}
   * once it is ready, or the {@link SSLException} that says why it cannot be made.
   */
  void prepare(UpstreamTls profile, EventExecutor loop, Consumer<Throwable> done) {
    GlobalEventExecutor.INSTANCE.execute(() -> {
      Throwable failure = null;
      try {
        context(profile);
      } catch (SSLException e) {
        failure = e;
      }
      Throwable result = failure;
      try {
        loop.execute(() -> done.accept(result));
      } catch (RejectedExecutionException shuttingDown) {
        done.accept(result); // the loop is closing: answer here rather than never
      }
    });
  }

  private SslContext context(UpstreamTls profile) throws SSLException {
    SslContext c = contexts.get(profile);
    if (c == null) {
      c = build(profile);
      SslContext raced = contexts.putIfAbsent(profile, c);
      c = raced == null ? c : raced;
    }
    return c;
  }

  static SslContext build(UpstreamTls profile) throws SSLException {
    try {
      return builder(profile).build();
    } catch (SSLException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new SSLException("cannot use the service's TLS files: " + e.getMessage(), e);
    }
  }

  private static SslContextBuilder builder(UpstreamTls profile) {
    SslContextBuilder b = SslContextBuilder.forClient().sslProvider(PROVIDER)
        .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, ALPN));
    if (profile.verify()) {
      b.endpointIdentificationAlgorithm("HTTPS");
      profile.caPath().ifPresent(ca -> b.trustManager(new File(ca)));
    } else {
      b.endpointIdentificationAlgorithm(null).trustManager(InsecureTrustManagerFactory.INSTANCE);
    }
    if (profile.mutual()) {
      b.keyManager(new File(profile.certPath().orElseThrow()), new File(profile.keyPath().orElseThrow()));
    }
    return b;
  }
}
