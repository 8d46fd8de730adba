package dev.fairway.proxy.tls;

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
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
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

  private TlsContexts(Mapping<String, SslContext> mapping) {
    this.mapping = mapping;
  }

  /**
   * Builds every context; the files were checked by the config parser, so a failure here is a
   * file that changed since (or a provider problem).
   *
   * @throws SSLException when a context cannot be built
   */
  public static TlsContexts build(TlsSettings settings) throws SSLException {
    TlsProvider chosen = TlsProvider.fromSystem();
    LOG.info("TLS provider: {} ({})", chosen.describe(), chosen.reason());
    SslProvider provider = chosen.provider();
    List<SslContext> contexts = new ArrayList<>();
    for (TlsSettings.Certificate c : settings.certificates()) {
      contexts.add(context(settings, c, provider));
    }
    DomainWildcardMappingBuilder<SslContext> b = new DomainWildcardMappingBuilder<>(contexts.get(0));
    Set<String> named = new HashSet<>();
    for (int i = 0; i < contexts.size(); i++) {
      TlsSettings.Certificate c = settings.certificates().get(i);
      List<String> names = dnsNames(leaf(c));
      for (String name : names) {
        if (named.add(name)) { // a name two certificates share goes to the one listed first
          b.add(name, contexts.get(i));
        }
      }
      LOG.info("TLS certificate {} ({}) serves {}{}", c.path(), c.certPath(), names.isEmpty() ? "no DNS name" : names,
          i == 0 ? ", and every client without SNI or with a name no certificate covers" : "");
    }
    return new TlsContexts(b.build());
  }

  /** Server name (SNI, {@code null} when none was sent) to the context to serve it with. */
  public Mapping<String, SslContext> mapping() {
    return mapping;
  }

  private static SslContext context(TlsSettings s, TlsSettings.Certificate c, SslProvider provider) throws SSLException {
    warnIfExpired(c);
    SslContextBuilder b = SslContextBuilder.forServer(new File(c.certPath()), new File(c.keyPath()))
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
    s.clientCa().ifPresent(ca -> b.trustManager(new File(ca)).clientAuth(ClientAuth.REQUIRE));
    return b.build();
  }

  private static void warnIfExpired(TlsSettings.Certificate c) throws SSLException {
    X509Certificate leaf = leaf(c);
    try {
      leaf.checkValidity();
    } catch (CertificateException e) {
      LOG.warn("{}.certPath: certificate {} of {} is not valid now (valid {} to {}); serving it anyway", c.path(),
          leaf.getSubjectX500Principal().getName(), c.certPath(), leaf.getNotBefore().toInstant(),
          leaf.getNotAfter().toInstant());
    }
  }

  private static X509Certificate leaf(TlsSettings.Certificate c) throws SSLException {
    try (InputStream in = Files.newInputStream(Path.of(c.certPath()))) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    } catch (IOException | CertificateException | RuntimeException e) {
      throw new SSLException(c.path() + ".certPath: cannot read " + c.certPath() + ": " + e.getMessage(), e);
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
