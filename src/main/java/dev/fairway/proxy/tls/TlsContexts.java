package dev.fairway.proxy.tls;

import dev.fairway.config.FileSnapshot;
import dev.fairway.config.PemCheck;
import dev.fairway.config.TlsSettings;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.util.DomainWildcardMappingBuilder;
import io.netty.util.Mapping;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the listener's server {@link SslContext}s from {@link TlsSettings}, one per certificate,
 * and the SNI mapping that picks one per connection.
 *
 * <p>Example: certificates {@code [a.pem (SAN a.example), wild.pem (SAN *.example.com)]} give a
 * mapping where SNI {@code a.example} and any name that matches no SAN map to {@code a.pem}'s
 * context and {@code api.example.com} maps to {@code wild.pem}'s. Each context enables the
 * configured protocols and HTTP/2's cipher suites (RFC 9113 §9.2.2: TLS 1.3's, and ECDHE with AEAD
 * for TLS 1.2, so each has forward secrecy), offers the configured ALPN names, keeps a session
 * cache for resumption (TLS 1.3 tickets stay on, as both providers do by default) and, with
 * {@code clientCa}, requires a client certificate signed by it. The provider is {@link TlsProvider}'s
 * choice.
 */
public final class TlsContexts {
  private static final Logger LOG = LoggerFactory.getLogger(TlsContexts.class);
  /** Sessions kept for resumption per certificate, and for how long. */
  private static final long SESSION_CACHE_SIZE = 20_480;
  private static final long SESSION_TIMEOUT_SECONDS = 300;
  private static final int SAN_DNS = 2;

  private final Mapping<String, SslContext> mapping;
  private final String certificates;

  private TlsContexts(Mapping<String, SslContext> mapping, String certificates) {
    this.mapping = mapping;
    this.certificates = certificates;
  }

  /** The files the contexts are built from: each certificate's {@code certPath} and {@code keyPath}, then {@code clientCa}. */
  static List<String> files(TlsSettings settings) {
    List<String> out = new ArrayList<>();
    settings.certificates().forEach(c -> out.addAll(List.of(c.certPath(), c.keyPath())));
    settings.clientCa().ifPresent(out::add);
    return out;
  }

  /** The provider the listener's contexts use ({@link TlsProvider}'s choice), logged once with why. */
  static SslProvider provider() {
    TlsProvider chosen = TlsProvider.fromSystem();
    LOG.info("TLS provider: {} ({})", chosen.describe(), chosen.reason());
    return chosen.provider();
  }

  /**
   * Builds every context from the bytes of {@code files} (see {@link #files}), checking each
   * certificate and key as the config parser does: at start-up the parser has checked them
   * already, so a failure is a file that changed since; on a reload the exception's message
   * names the bad file and why.
   *
   * @throws SSLException when a context cannot be built
   */
  static TlsContexts build(TlsSettings settings, FileSnapshot files, SslProvider provider) throws SSLException {
    List<SslContext> contexts = new ArrayList<>();
    List<X509Certificate> leaves = new ArrayList<>();
    byte[] clientCa = settings.clientCa().isPresent() ? caBundle(settings.clientCa().get(), files) : null;
    for (TlsSettings.Certificate c : settings.certificates()) {
      byte[] chain = bytes(files, c.certPath());
      byte[] key = bytes(files, c.keyPath());
      X509Certificate leaf;
      try {
        leaf = PemCheck.pair(c.certPath(), chain, c.keyPath(), key);
      } catch (CertificateException e) {
        throw new SSLException(e.getMessage(), e);
      }
      leaves.add(leaf);
      contexts.add(context(settings, c, provider, new Material(leaf, chain, key, clientCa)));
    }
    DomainWildcardMappingBuilder<SslContext> b = new DomainWildcardMappingBuilder<>(contexts.get(0));
    Set<String> named = new HashSet<>();
    for (int i = 0; i < contexts.size(); i++) {
      TlsSettings.Certificate c = settings.certificates().get(i);
      List<String> names = dnsNames(leaves.get(i));
      for (String name : names) {
        if (named.add(name)) { // a name two certificates share goes to the one listed first
          b.add(name, contexts.get(i));
        }
      }
      LOG.info("TLS certificate {} ({}) serves {}{}", c.path(), c.certPath(), names.isEmpty() ? "no DNS name" : names,
          i == 0 ? ", and every client without SNI or with a name no certificate covers" : "");
    }
    return new TlsContexts(b.build(), describe(settings, leaves));
  }

  /** What one context is made of: the leaf (already parsed) and the bytes of its files. */
  private record Material(X509Certificate leaf, byte[] chain, byte[] key, byte[] clientCa) {
  }

  private static byte[] bytes(FileSnapshot files, String path) throws SSLException {
    try {
      return files.bytes(path);
    } catch (IOException e) {
      throw new SSLException(e.getMessage(), e);
    }
  }

  private static byte[] caBundle(String path, FileSnapshot files) throws SSLException {
    byte[] ca = bytes(files, path);
    try {
      PemCheck.certificates(path, ca);
    } catch (CertificateException e) {
      throw new SSLException(e.getMessage(), e);
    }
    return ca;
  }

  private static String describe(TlsSettings settings, List<X509Certificate> leaves) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < leaves.size(); i++) {
      out.add(settings.certificates().get(i).certPath() + " serial " + leaves.get(i).getSerialNumber().toString(16));
    }
    return String.join(", ", out);
  }

  /** Each certificate's file and serial number (hex), as {@code a.pem serial 1f3a, wild.pem serial 77}. */
  public String certificates() {
    return certificates;
  }

  /** Server name (SNI, {@code null} when none was sent) to the context to serve it with. */
  public Mapping<String, SslContext> mapping() {
    return mapping;
  }

  private static SslContext context(TlsSettings s, TlsSettings.Certificate c, SslProvider provider, Material m)
      throws SSLException {
    warnIfExpired(c, m.leaf());
    try {
      SslContextBuilder b = SslContextBuilder.forServer(new ByteArrayInputStream(m.chain()),
              new ByteArrayInputStream(m.key()))
          .sslProvider(provider)
          .protocols(s.protocols())
          .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
          .sessionCacheSize(SESSION_CACHE_SIZE)
          .sessionTimeout(SESSION_TIMEOUT_SECONDS);
      if (!s.alpn().isEmpty()) {
        b.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, s.alpn()));
      }
      if (m.clientCa() != null) {
        b.trustManager(new ByteArrayInputStream(m.clientCa())).clientAuth(ClientAuth.REQUIRE);
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new SSLException(c.certPath() + ": cannot be used (" + e.getMessage() + ")", e);
    }
  }

  private static void warnIfExpired(TlsSettings.Certificate c, X509Certificate leaf) {
    try {
      leaf.checkValidity();
    } catch (CertificateException e) {
      LOG.warn("{}.certPath: certificate {} of {} is not valid now (valid {} to {}); serving it anyway", c.path(),
          leaf.getSubjectX500Principal().getName(), c.certPath(), leaf.getNotBefore().toInstant(),
          leaf.getNotAfter().toInstant());
    }
  }

  /** The certificate's DNS subject alternative names, in lower case. */
  static List<String> dnsNames(X509Certificate cert) throws SSLException {
    List<String> out = new ArrayList<>();
    try {
      Collection<List<?>> sans = cert.getSubjectAlternativeNames();
      if (sans != null) {
        for (List<?> san : sans) {
          if (san.size() >= 2 && san.get(0) instanceof Integer type && type == SAN_DNS && san.get(1) instanceof String n) {
            out.add(n.toLowerCase(Locale.ROOT));
          }
        }
      }
    } catch (CertificateException e) {
      throw new SSLException("bad subject alternative names in " + cert.getSubjectX500Principal(), e);
    }
    return out;
  }
}
