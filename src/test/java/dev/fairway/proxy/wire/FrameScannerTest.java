package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.EdgeLimits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link FrameScanner} alone, without a pipeline: the events it tells its sink, one line per
 * case. In inputs and events {@code |} stands for CRLF; each argument of {@link #requests} and
 * {@link #responses} is one read.
 */
class FrameScannerTest {
  private static final String GET = "GET /a HTTP/1.1|Host: a||";
  private static final String CHUNKED = "POST / HTTP/1.1|Host: a|Transfer-Encoding: chunked||";

  /** Records events as text; {@code buf} is the read being scanned. */
  private static final class Recorder implements FrameScanner.Sink {
    final List<String> events = new ArrayList<>();
    ByteBuf buf;

    @Override
    public void bytes(int from, int to) {
      events.add("pass(" + text(buf.toString(from, to - from, StandardCharsets.ISO_8859_1)) + ")");
    }

    @Override
    public void head(byte[] b, int length) {
      events.add("head(" + text(new String(b, 0, length, StandardCharsets.ISO_8859_1)) + ")");
    }

    @Override
    public void chunkSize(long size) {
      events.add("size(" + size + ")");
    }

    @Override
    public void request(RawRequest r) {
      events.add("request(" + r.method() + " " + r.uri() + ")");
    }

    @Override
    public void response(RawResponse r) {
      events.add("response(" + r.status() + ", " + r.bodyLength() + ")");
    }

    @Override
    public void body(int from, int to, boolean last) {
      events.add("body(" + text(buf.toString(from, to - from, StandardCharsets.ISO_8859_1)) + (last ? ", last)" : ")"));
    }

    @Override
    public void headStarted() {
      events.add("start");
    }

    @Override
    public void headEnded() {
      events.add("end");
    }

    @Override
    public void headFault(Failure f) {
      events.add("headFault(" + f + ")");
    }

    @Override
    public void bodyFault(Failure f) {
      events.add("bodyFault(" + f + ")");
    }
  }

  private static String text(String s) {
    return s.replace("\r\n", "|").replace("\r", "\\r").replace("\n", "\\n");
  }

  private static String wire(String s) {
    return s.replace("|", "\r\n");
  }

  private static String scan(FrameScanner scanner, Recorder r, String... reads) {
    for (String read : reads) {
      r.buf = Unpooled.copiedBuffer(wire(read), StandardCharsets.ISO_8859_1);
      scanner.scan(r.buf);
      r.buf.release();
    }
    return String.join(" ", r.events);
  }

  private static String requests(String... reads) {
    Recorder r = new Recorder();
    return scan(new FrameScanner(true, EdgeLimits.DEFAULTS, r), r, reads);
  }

  /** Scans responses to one request ({@code HEAD} if {@code toHead}). */
  private static String responses(boolean toHead, String... reads) {
    Recorder r = new Recorder();
    FrameScanner scanner = new FrameScanner(false, EdgeLimits.DEFAULTS, r);
    scanner.expectResponseTo(toHead);
    return scan(scanner, r, reads) + (scanner.reusable() ? " reusable" : "");
  }

  @Test
  void requestFraming() {
    assertThat(requests(GET)).isEqualTo("start end request(GET /a)");
    assertThat(requests("||" + GET)).isEqualTo("start end request(GET /a)");
    assertThat(requests("POST / HTTP/1.1|Host: a|Content-Length: 2||hi" + GET))
        .isEqualTo("start end pass(POST / HTTP/1.1|Host: a|Content-Length: 2||hi) start end request(GET /a)");
    assertThat(requests("POST / HTTP/1.1|Ho", "st: a|Content-Length: 2||hi"))
        .isEqualTo("start end head(POST / HTTP/1.1|Host: a|Content-Length: 2||) pass(hi)");
    assertThat(requests("POST / HTTP/1.1|Host: a|Content-Length: 5||he", "llo"))
        .isEqualTo("start end pass(POST / HTTP/1.1|Host: a|Content-Length: 5||he) pass(llo)");
  }

  @Test
  void chunkedRequests() {
    assertThat(requests(CHUNKED + "5|hello|0||")).isEqualTo("start end pass(" + CHUNKED + "5|hello|0||)");
    assertThat(requests(CHUNKED + "5;a=b|hello|0||")).isEqualTo("start end pass(" + CHUNKED + ") size(5) pass(hello|0||)");
    assertThat(requests(CHUNKED + "05 |hello|0||")).isEqualTo("start end pass(" + CHUNKED + ") size(5) pass(hello|0||)");
    assertThat(requests(CHUNKED + "5", "|hello|0||")).isEqualTo("start end pass(" + CHUNKED + ") size(5) pass(hello|0||)");
    assertThat(requests(CHUNKED + "0|T: 1||" + GET)).isEqualTo("start end pass(" + CHUNKED + "0|T: 1||) start end request(GET /a)");
  }

  @Test
  void malformedBodiesPassWhatCameBeforeTheFault() {
    assertThat(requests(CHUNKED + "zz|")).isEqualTo("start end pass(" + CHUNKED + ") bodyFault(MALFORMED_REQUEST)");
    assertThat(requests(CHUNKED + "5\nhello")).isEqualTo("start end pass(" + CHUNKED + ") bodyFault(MALFORMED_REQUEST)");
    assertThat(requests(CHUNKED + "5|helloXY")).isEqualTo("start end pass(" + CHUNKED + "5|hello) bodyFault(MALFORMED_REQUEST)");
    assertThat(requests(CHUNKED + "80000000|")).isEqualTo("start end pass(" + CHUNKED + ") bodyFault(MALFORMED_REQUEST)");
    assertThat(requests(CHUNKED + "0|T : 1|")).isEqualTo("start end pass(" + CHUNKED + "0|) bodyFault(MALFORMED_REQUEST)");
    assertThat(requests(CHUNKED + "5|hello|zz|", GET)).isEqualTo("start end pass(" + CHUNKED + "5|hello|) bodyFault(MALFORMED_REQUEST)");
  }

  @Test
  void invalidHeadsNeverGoOn() {
    assertThat(requests("GET / HTTP/1.1\nHost: a||")).isEqualTo("start headFault(MALFORMED_REQUEST)");
    assertThat(requests("GET / HTTP/1.1|Host: a| b||")).isEqualTo("start end headFault(MALFORMED_REQUEST)");
    assertThat(requests("GET / HTTP/1.1|Host : a||")).isEqualTo("start end headFault(MALFORMED_REQUEST)");
    assertThat(requests("GET / HTTP/1.1|Host: a|X: \u000b||")).isEqualTo("start end headFault(MALFORMED_REQUEST)");
    assertThat(requests("POST / HTTP/1.1|Host: a|Content-Length: 1|Transfer-Encoding: chunked||"))
        .isEqualTo("start end headFault(MALFORMED_REQUEST)");
    assertThat(requests("GET /" + "a".repeat(8200))).isEqualTo("start headFault(URI_TOO_LONG)");
    assertThat(requests("GET / HTTP/1.1|X: " + "a".repeat(33000))).isEqualTo("start headFault(HEADERS_TOO_LARGE)");
    assertThat(requests(GET + "GET / HTTP/1.1\n")).isEqualTo("start end request(GET /a) start headFault(MALFORMED_REQUEST)");
  }

  @Test
  void responseFraming() {
    assertThat(responses(false, "HTTP/1.1 200 OK|Content-Length: 5||hello"))
        .isEqualTo("end response(200, 5) body(hello, last) reusable");
    assertThat(responses(false, "HTTP/1.1 200 OK|Content-Length: 5||he", "llo"))
        .isEqualTo("end response(200, 5) body(he) body(llo, last) reusable");
    assertThat(responses(false, "HTTP/1.1 200 OK|Transfer-Encoding: chunked||1|x|0||"))
        .isEqualTo("end pass(HTTP/1.1 200 OK|Transfer-Encoding: chunked||1|x|0||) reusable");
    assertThat(responses(false, "HTTP/1.1 100 Continue||HTTP/1.1 204 No Content||"))
        .isEqualTo("end pass(HTTP/1.1 100 Continue||) end response(204, 0) reusable");
    assertThat(responses(true, "HTTP/1.1 200 OK|Content-Length: 5||")).isEqualTo("end response(200, 0) reusable");
    assertThat(responses(false, "HTTP/1.1 200 OK||stream")).isEqualTo("end pass(HTTP/1.1 200 OK||stream)");
    assertThat(responses(false, "HTTP/1.1 101 Switching Protocols|Upgrade: ws||frames"))
        .isEqualTo("end pass(HTTP/1.1 101 Switching Protocols|Upgrade: ws||frames)");
  }

  @Test
  void strayResponseBytesMakeTheConnectionUnusable() {
    assertThat(responses(false, "HTTP/1.1 204 No Content||x")).isEqualTo("end response(204, 0) headFault(BAD_RESPONSE)");
    assertThat(responses(true, "HTTP/1.1 200 OK|Content-Length: 5||hello")).isEqualTo("end response(200, 0) headFault(BAD_RESPONSE)");
    assertThat(responses(false, "HTTP/1.1 200 OK|Content-Length: 1||xy")).isEqualTo("end response(200, 1) body(x, last) headFault(BAD_RESPONSE)");
    assertThat(responses(false, "HTTP/1.1 200 OK|Content-Length: 1||x", "y")).isEqualTo("end response(200, 1) body(x, last) headFault(BAD_RESPONSE)");
    assertThat(responses(false, "HTTP/1.1 200 OK|Content-Length: x||")).isEqualTo("end headFault(BAD_RESPONSE)");
    assertThat(responses(false, "HTTP/1.1 200 OK|Transfer-Encoding: chunked||1|x|0||", "HTTP/1.1 200 OK||"))
        .isEqualTo("end pass(HTTP/1.1 200 OK|Transfer-Encoding: chunked||1|x|0||) headFault(BAD_RESPONSE)");
  }

  @Test
  void stateForTheHandler() {
    Recorder r = new Recorder();
    FrameScanner scanner = new FrameScanner(true, EdgeLimits.DEFAULTS, r);
    scan(scanner, r, "GET / HT");
    assertThat(scanner).hasToString("HEAD, head=GET / HT");
    assertThat(scanner.betweenBodies()).isTrue();
    scanner.tunnel();
    assertThat(scanner.tunneling()).isTrue();
    scanner.stop();
    assertThat(scanner.stopped()).isTrue();
  }
}
