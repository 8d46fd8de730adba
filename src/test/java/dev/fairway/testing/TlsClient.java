package dev.fairway.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * A blocking JDK TLS client for the TLS listener's tests: it trusts the test CA
 * ({@link TlsFiles} {@code ca.pem}), optionally presents {@code client.pem}, and sends one
 * HTTP/1.1 request with {@code Connection: close}.
 *
 * <p>Example: {@code SSLSocket s = TlsClient.connect(TlsClient.context(false), port, "b.test");
 * TlsClient.sans(s)} is {@code ["b.test"]}; {@code TlsClient.get(s, "/")} returns the whole answer
 * as text. Every read is bounded by a five second socket timeout.
 */
public final class TlsClient {
  private TlsClient() {
  }

  /** Trusts the test CA; presents {@code client.pem} when {@code clientCertificate}. */
  public static SSLContext context(boolean clientCertificate) throws GeneralSecurityException, IOException {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", certificates("ca.pem").get(0));
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(clientCertificate ? keyManagers("client") : null, tmf.getTrustManagers(), null);
    return ctx;
  }

  /** Trusts any server certificate (for the expired one). */
  public static SSLContext trustingAll() throws GeneralSecurityException {
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, new TrustManager[] {new X509TrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType) {
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType) {
      }

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    }}, null);
    return ctx;
  }

  /**
   * Connects to 127.0.0.1:port and completes the handshake.
   *
   * @param sni the server name to send, or {@code null} for none
   */
  public static SSLSocket connect(SSLContext ctx, int port, String sni, String... protocols) throws IOException {
    SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket();
    s.setSoTimeout(5000);
    SSLParameters p = s.getSSLParameters();
    p.setServerNames(sni == null ? List.of() : List.of(new SNIHostName(sni)));
    if (protocols.length > 0) {
      p.setProtocols(protocols);
    }
    s.setSSLParameters(p);
    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    s.startHandshake();
    return s;
  }

  /** The DNS SANs of the certificate the server presented. */
  public static List<String> sans(SSLSocket s) throws IOException {
    try {
      Collection<List<?>> names = ((X509Certificate) s.getSession().getPeerCertificates()[0])
          .getSubjectAlternativeNames();
      List<String> out = new ArrayList<>();
      for (List<?> n : names) {
        if (Integer.valueOf(2).equals(n.get(0))) {
          out.add((String) n.get(1));
        }
      }
      return out;
    } catch (java.security.cert.CertificateParsingException e) {
      throw new IOException(e);
    }
  }

  /** Sends {@code GET path} with {@code Connection: close} and reads the answer to its end. */
  public static String get(Socket s, String path) throws IOException {
    s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return readAll(s.getInputStream());
  }

  /** Reads until the peer closes (or five seconds pass without a byte). */
  public static String readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    for (int n; (n = in.read(buf)) >= 0; ) {
      out.write(buf, 0, n);
    }
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  private static javax.net.ssl.KeyManager[] keyManagers(String name) throws GeneralSecurityException, IOException {
    String pem = Files.readString(Path.of(TlsFiles.path(name + ".key")), StandardCharsets.US_ASCII);
    String b64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(b64)));
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry(name, key, new char[0], certificates(name + ".pem").toArray(new Certificate[0]));
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, new char[0]);
    return kmf.getKeyManagers();
  }

  private static List<Certificate> certificates(String file) throws GeneralSecurityException, IOException {
    try (InputStream in = Files.newInputStream(Path.of(TlsFiles.path(file)))) {
      return new ArrayList<>(CertificateFactory.getInstance("X.509").generateCertificates(in));
    }
  }
}
