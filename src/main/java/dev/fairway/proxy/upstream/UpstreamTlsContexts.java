package dev.fairway.proxy.upstream;

import dev.fairway.config.FileBacked;
import dev.fairway.config.FileSnapshot;
import dev.fairway.config.PemCheck;
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
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.cert.CertificateException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client-side TLS contexts of the process, one per distinct {@link UpstreamTls} profile, made
 * once on first use off the event loops ({@link #prepare}: reading its few PEM files) and shared by
 * every event loop, made again by {@link #rescan} when those files change; and the
 * {@link SslHandler} that starts a backend connection's pipeline.
 *
 * <p>Example: services {@code a} and {@code b} both with {@code {"caPath": "ca.pem"}} share one
 * context; a connection to {@code https://127.0.0.1:9443} of service {@code a} with
 * {@code "serverName": "api.internal"} gets a handler whose engine sends SNI {@code api.internal},
 * checks that the certificate names {@code api.internal} and chains up to {@code ca.pem}, and
 * offers ALPN {@code h2} and {@code http/1.1}. With {@code "verify": false} any certificate is accepted and no
 * name is checked. When {@code ca.pem} is replaced by a bundle with a new CA, the next
 * {@link #rescan} builds a new context for new connections; pooled connections keep theirs.
 *
 * <p>The provider is the listener's, {@link TlsProvider}'s choice, kept in {@link #PROVIDER}.
 */
public final class UpstreamTlsContexts {
  /** The TLS implementation of backend connections. */
  static final SslProvider PROVIDER = TlsProvider.fromSystem().provider();

  /**
   * What ALPN offers a backend, preferred first: HTTP/2 (the connection then carries many streams,
   * {@link H2Upstreams}), else HTTP/1.1; a backend without ALPN gets HTTP/1.1.
   */
  static final List<String> ALPN = List.of(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1);

  private static final Logger LOG = LoggerFactory.getLogger(UpstreamTlsContexts.class);

  /**
   * A profile's context and the file bytes it was built from.
   *
   * @param files the profile's {@code caPath}, {@code certPath} and {@code keyPath} as read for {@code context}
   */
  public record Built(SslContext context, FileSnapshot files) {
  }

  /**
   * Each profile's context: one build on first use, shared by every connect that races for it,
   * then rebuilt by {@link #rescan} when its files change. A failed build stays (and is what
   * connects get) until the files change.
   */
  private final Map<UpstreamTls, CompletableFuture<FileBacked<Built>>> contexts = new ConcurrentHashMap<>();
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
    SslHandler h = current(profile).context().newHandler(alloc, name, port);
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

  /** Whether the context of {@code profile} is made (or failed), so that a connection can start at once. */
  boolean ready(UpstreamTls profile) {
    CompletableFuture<FileBacked<Built>> f = contexts.get(profile);
    return f != null && f.isDone();
  }

  /**
   * The context of {@code profile}: made on first call off the event loops (reading its files and
   * perhaps the JVM's trust store takes milliseconds), one build however many connects race for it.
   */
  private CompletableFuture<FileBacked<Built>> prepare(UpstreamTls profile) {
    CompletableFuture<FileBacked<Built>> f = contexts.get(profile);
    if (f == null) {
      f = contexts.computeIfAbsent(profile, p -> CompletableFuture.supplyAsync(
          () -> FileBacked.load(paths(p), FileSnapshot.DISK, snapshot -> new Built(build(p, snapshot), snapshot)),
          GlobalEventExecutor.INSTANCE));
    }
    return f;
  }

  /**
   * Makes the context of {@code profile} if needed, then tells {@code done} on {@code loop}:
   * {@code null} once it is ready, or the {@link SSLException} that says why it cannot be made.
   */
  void prepare(UpstreamTls profile, EventExecutor loop, Consumer<Throwable> done) {
    prepare(profile).whenComplete((built, error) -> {
      Throwable result = error != null ? error
          : built.current().isPresent() ? null : new SSLException(built.failure().orElseThrow());
      try {
        loop.execute(() -> done.accept(result));
      } catch (RejectedExecutionException shuttingDown) {
        done.accept(result); // the loop is closing: answer here rather than never
      }
    });
  }

  /**
   * The files the current context of {@code profile} was built from (made first if needed), so
   * that health checks use exactly what proxied connections use; fails with the
   * {@link SSLException} that says why no context could be made.
   */
  public CompletableFuture<FileSnapshot> files(UpstreamTls profile) {
    return prepare(profile).thenApply(b -> b.current().map(Built::files)
        .orElseThrow(() -> new CompletionException(new SSLException(b.failure().orElseThrow()))));
  }

  private Built current(UpstreamTls profile) throws SSLException {
    CompletableFuture<FileBacked<Built>> f = contexts.get(profile);
    if (f == null || !f.isDone()) {
      throw new SSLException("the backend TLS context is not made yet");
    }
    FileBacked<Built> b = f.join();
    return b.current().orElseThrow(() -> new SSLException(b.failure().orElseThrow()));
  }

  /**
   * Re-reads the files of every profile in use (blocking: call it off the event loops) and
   * rebuilds the context of each whose files changed; new connections use it, pooled ones stay.
   * Files that cannot be used are logged once and the previous context stays.
   */
  public void rescan() {
    contexts.forEach((profile, f) -> {
      if (!f.isDone()) {
        return;
      }
      FileBacked<Built> b = f.join();
      FileBacked.Scan<Built> scan = b.scan();
      if (scan instanceof FileBacked.Reloaded<Built> r) {
        LOG.info("backend TLS: reloaded {} after {} changed; new connections use them", b.paths(), r.changed());
      } else if (scan instanceof FileBacked.Rejected<Built> r) {
        LOG.warn("backend TLS: {} changed but not reloaded, new connections go on with the previous files: {}",
            r.changed(), r.reason());
      }
    });
  }

  /** Forgets the contexts and pool keys of the profiles not in {@code active} (after a config reload). */
  public void retain(Collection<UpstreamTls> active) {
    Set<UpstreamTls> keep = Set.copyOf(active);
    contexts.keySet().retainAll(keep);
    poolKeys.keySet().retainAll(keep);
  }

  /** The files a profile reads: {@code caPath} (when verifying), {@code certPath}, {@code keyPath}. */
  static List<String> paths(UpstreamTls profile) {
    List<String> out = new ArrayList<>();
    if (profile.verify()) {
      profile.caPath().ifPresent(out::add);
    }
    profile.certPath().ifPresent(out::add);
    profile.keyPath().ifPresent(out::add);
    return out;
  }

  static SslContext build(UpstreamTls profile, FileSnapshot files) throws SSLException {
    try {
      return builder(profile, files).build();
    } catch (SSLException e) {
      throw e;
    } catch (IOException | CertificateException | RuntimeException e) {
      throw new SSLException(e.getMessage(), e);
    }
  }

  private static SslContextBuilder builder(UpstreamTls profile, FileSnapshot files)
      throws IOException, CertificateException {
    SslContextBuilder b = SslContextBuilder.forClient().sslProvider(PROVIDER)
        .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, ALPN));
    if (profile.verify()) {
      b.endpointIdentificationAlgorithm("HTTPS");
      if (profile.caPath().isPresent()) {
        String ca = profile.caPath().get();
        byte[] bundle = files.bytes(ca);
        PemCheck.certificates(ca, bundle);
        b.trustManager(new ByteArrayInputStream(bundle));
      }
    } else {
      b.endpointIdentificationAlgorithm(null).trustManager(InsecureTrustManagerFactory.INSTANCE);
    }
    if (profile.mutual()) {
      String certPath = profile.certPath().orElseThrow();
      String keyPath = profile.keyPath().orElseThrow();
      byte[] chain = files.bytes(certPath);
      byte[] key = files.bytes(keyPath);
      PemCheck.pair(certPath, chain, keyPath, key);
      b.keyManager(new ByteArrayInputStream(chain), new ByteArrayInputStream(key));
    }
    return b;
  }
}
