package dev.fairway.proxy.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.config.EdgeLimits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The {@link FramingGuard} against Netty's decoder behind it, as in Fairway's pipelines: generated
 * messages with a body (chunked with sizes around 2^31, 2^32 and 2^63, extensions, odd spellings;
 * or a {@code Content-Length}), each followed by a second message, go through the guard, and what
 * it passes goes through the decoder. Wherever the guard lets a message through whole, the decoder
 * must end it where the guard does, with the body the sender meant, and read the second message
 * next; wherever the guard still waits for body bytes, the decoder must too. (Where the guard
 * refuses, the connection is answered and closed.) A disagreement is a smuggling gap.
 *
 * <p>A second corpus varies the heads themselves: field lines with VT, FF, tabs or spaces around
 * the colon and the value, obs-fold continuations, bare CR and bare LF line ends, and zero to three
 * {@code Content-Length} and {@code Transfer-Encoding} fields in any combination, followed by a
 * fixed or chunked body (chunk sizes with leading zeros, whitespace, extensions). For every message
 * the guard passes whole, the decoder must end it at the same byte of what the guard passed: fed
 * up to one byte before that point it has not ended the message, fed that byte it has.
 */
class FramingDifferentialTest {
  private static final String NEXT_REQUEST = "GET /next HTTP/1.1\r\nHost: x\r\n\r\n";
  private static final String NEXT_RESPONSE = "HTTP/1.1 299 Next\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
  private static final String[] SIZES = {"5", "05", "0005", "5", "7fffffff", "80000000", "80000005", "ffffffff",
      "100000000", "100000005", "1000000005", "7fffffffffffffff", "8000000000000000", "ffffffffffffffff",
      "10000000000000000", "10000000000000005", "00000000000000000005", "5;a=b", "5 ;a", "5;a=\"x;y\"", "5 ", "5\t",
      " 5", "5 5", "5;", "5;a=", "5,", "+5", "-5", "0x5", "5\u000b", "5;a\u0001", "F", "f",
      "5\u000c", "\u000c5", "\t5", "5 ;a=b", "5;a=b\t", "5;a=b ", "0000000000000000000000005", "5\r", "5\n", "5\r\r",
      "5;a\u000b", "5 \t;\ta\t=\t\"q\"", "005;", "5\u0085"};
  private static final String[] LAST_CHUNKS = {"0", "00", "0000000000000000000000", "0;x=y", "0 ", "0\t", "0\u000b", " 0",
      "0\r"};
  private static final String[] EOLS = {"\r\n", "\r\n", "\r\n", "\r\n", "\r\n", "\r\n", "\n", "\r", "\r\r\n",
      "\n\r"};
  private static final String[] NAMES = {"Content-Length", "content-length", "CONTENT-LENGTH", "Transfer-Encoding",
      "transfer-encoding", "Transfer-encoding", "X-A", "Content-Length\u0000", "Transfer_Encoding", " Transfer-Encoding"};
  private static final String[] BEFORE_COLON = {"", "", "", "", "", " ", "\t", "\u000b", "\u000c"};
  private static final String[] SPACES = {"", "", " ", " ", "\t", " \t", "  ", "\u000b", "\u000c", "\u0085", "\u00a0"};
  private static final String[] TE_VALUES = {"chunked", "chunked", "Chunked", "CHUNKED", "gzip, chunked", "gzip,chunked",
      "chunked, gzip", "chunked,chunked", "chunked, chunked", "identity", "identity, chunked", "chunked;q=1", "\"chunked\"",
      "chunked ,", ", chunked", "x-chunked", "chunk", "chunked\u000b", "\u000cchunked", "chunked\tx", "gzip"};
  private static final String[] CL_VALUES = {"5", "5", "05", "0", "00", "3", "5,5", "5, 5", "+5", "-5", "5 5", "0x5", "5.0",
      "", "1e1", "5\u00a0", "15", "18", "2147483653", "4294967301"};
  private static final String[] FOLDS = {" more", "\tmore", " ", "\t", " chunked", " 5"};
  private static final String[] LENGTHS = {"5", "05", "5 ", "2147483648", "4294967301", "9223372036854775807",
      "99999999999999999999", "+5", "5,5", "0x5"};

  /** How one side saw the first message. */
  private enum Outcome { REFUSED, ENDED, WAITING }

  /**
   * @param passed what the guard passed to the decoder (its own view: null)
   * @param end    where in {@code passed} the guard began the next message (its own view, ended: else -1)
   */
  private record Seen(Outcome outcome, String body, String passed, int end) {
    boolean agrees(Seen other) {
      return outcome == other.outcome && java.util.Objects.equals(body, other.body);
    }
  }

  @Test
  void theGuardAndNettysRequestDecoderAgreeWhereEveryRequestEnds() {
    check(true, 4_000);
  }

  @Test
  void theGuardAndNettysResponseDecoderAgreeWhereEveryChunkedResponseEnds() {
    check(false, 4_000);
  }

  @Test
  void theGuardAndNettysRequestDecoderEndEveryRequestWithOddHeadsAtTheSameByte() {
    checkEnds(true, 20_000);
  }

  @Test
  void theGuardAndNettysResponseDecoderEndEveryResponseWithOddHeadsAtTheSameByte() {
    checkEnds(false, 10_000);
  }

  private static void check(boolean requests, int rounds) {
    SplittableRandom random = new SplittableRandom(20261125);
    List<String> disagreements = new ArrayList<>();
    int ended = 0;
    for (int n = 0; n < rounds; n++) {
      String message = message(random, requests);
      Seen guard = throughGuard(message, requests);
      if (guard.outcome() == Outcome.REFUSED) {
        continue;
      }
      if (guard.outcome() == Outcome.ENDED) {
        guard = new Seen(Outcome.ENDED, bodyOf(message, requests), guard.passed(), guard.end());
      }
      Seen netty = throughDecoder(guard.passed(), requests);
      if (!guard.agrees(netty)) {
        disagreements.add(escape(message) + ": guard " + guard + ", Netty " + netty);
      }
      if (guard.outcome() == Outcome.ENDED) {
        ended++;
      }
    }
    assertThat(disagreements).isEmpty();
    assertThat(ended).as("messages passed whole").isGreaterThan(rounds / 10);
  }

  /**
   * Messages with varied heads: wherever the guard passes the first one whole, the decoder ends it
   * at the same byte of what the guard passed; wherever the guard waits for more, so does the decoder.
   */
  private static void checkEnds(boolean requests, int rounds) {
    SplittableRandom random = new SplittableRandom(20261126);
    List<String> disagreements = new ArrayList<>();
    int ended = 0;
    int waiting = 0;
    for (int n = 0; n < rounds; n++) {
      String message = variant(random, requests);
      Seen guard = throughGuard(message, requests);
      if (guard.outcome() == Outcome.REFUSED || guard.passed().isEmpty() && guard.outcome() == Outcome.WAITING) {
        continue;
      }
      String netty;
      if (guard.outcome() == Outcome.ENDED) {
        ended++;
        netty = guard.end() <= 0 ? "the guard passed no first message" : endsAt(guard.passed(), guard.end(), requests);
      } else {
        waiting++;
        Seen seen = throughDecoder(guard.passed(), requests);
        netty = seen.outcome() == Outcome.WAITING ? null : "the decoder " + seen.outcome() + " where the guard waits";
      }
      if (netty != null) {
        disagreements.add(escape(message) + ": " + netty + "; the guard passed " + escape(guard.passed()));
      }
    }
    assertThat(disagreements).isEmpty();
    assertThat(ended).as("messages passed whole").isGreaterThan(rounds / 20);
    assertThat(waiting).as("messages the guard waits for").isGreaterThan(0);
  }

  /** {@code s} with CR, LF and the other control characters spelled out. */
  private static String escape(String s) {
    StringBuilder out = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (c == '\r' || c == '\n') {
        out.append(c == '\r' ? "\\r" : "\\n");
      } else if (c < 0x20 || c >= 0x7f && c < 0xa1) {
        out.append(String.format("\\x%02x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** A message whose head has varied field lines, with a body, then the next message. */
  private static String variant(SplittableRandom random, boolean request) {
    StringBuilder m = new StringBuilder(request ? "POST /a HTTP/1.1\r\nHost: x\r\n" : "HTTP/1.1 200 OK\r\n");
    boolean chunked = false;
    for (int fields = random.nextInt(request ? 4 : 3); fields > 0; fields--) {
      String name = NAMES[random.nextInt(NAMES.length)];
      boolean te = name.toLowerCase(java.util.Locale.ROOT).contains("transfer");
      if (!request && name.toLowerCase(java.util.Locale.ROOT).contains("content-length")) {
        continue; // a response framed by its length goes past the decoder
      }
      chunked |= te;
      String value = te ? TE_VALUES[random.nextInt(TE_VALUES.length)] : CL_VALUES[random.nextInt(CL_VALUES.length)];
      m.append(name).append(BEFORE_COLON[random.nextInt(BEFORE_COLON.length)]).append(':')
          .append(SPACES[random.nextInt(SPACES.length)]).append(value).append(SPACES[random.nextInt(SPACES.length)])
          .append(EOLS[random.nextInt(EOLS.length)]);
      if (random.nextInt(8) == 0) {
        m.append(FOLDS[random.nextInt(FOLDS.length)]).append("\r\n"); // obs-fold
      }
    }
    if (random.nextInt(4) == 0) {
      m.append("X-B:").append(SPACES[random.nextInt(SPACES.length)]).append('v').append(SPACES[random.nextInt(SPACES.length)])
          .append(EOLS[random.nextInt(EOLS.length)]);
    }
    if (!request && !chunked) {
      m.append("Transfer-Encoding: chunked\r\n");
      chunked = true;
    }
    m.append(random.nextInt(10) == 0 ? EOLS[random.nextInt(EOLS.length)] : "\r\n");
    if (chunked ? random.nextInt(5) > 0 : random.nextInt(5) == 0) {
      for (int chunks = random.nextInt(2); chunks >= 0; chunks--) {
        m.append(SIZES[random.nextInt(SIZES.length)]).append("\r\nhello\r\n");
      }
      m.append(random.nextInt(3) == 0 ? LAST_CHUNKS[random.nextInt(LAST_CHUNKS.length)] : "0").append("\r\n\r\n");
    } else {
      m.append("hello");
    }
    return m.append(request ? NEXT_REQUEST : NEXT_RESPONSE).toString();
  }

  /**
   * Feeds the decoder what the guard passed in three reads: up to one byte before {@code end} (where
   * the guard's next message begins), that byte, the rest. Returns null if the decoder ended the
   * first message with the second read exactly and then read the next message; else what it did.
   */
  private static String endsAt(String passed, int end, boolean requests) {
    EmbeddedChannel ch = new EmbeddedChannel(requests ? HeadAwareCodecs.requestDecoder(EdgeLimits.DEFAULTS)
        : HeadAwareCodecs.responseDecoder());
    String[] reads = {passed.substring(0, end - 1), passed.substring(end - 1, end), passed.substring(end)};
    int messages = 0;
    String verdict = null;
    for (int r = 0; r < reads.length && verdict == null; r++) {
      ch.writeInbound(Unpooled.copiedBuffer(reads[r], StandardCharsets.ISO_8859_1));
      for (Object m = ch.readInbound(); m != null; m = ch.readInbound()) {
        if (((HttpObject) m).decoderResult().isFailure()) {
          verdict = "the decoder failed in read " + r + ": " + ((HttpObject) m).decoderResult();
        } else if (m instanceof HttpMessage msg) {
          messages++;
          if (messages == 2 && !(msg instanceof HttpRequest q ? q.uri().equals("/next")
              : ((HttpResponse) msg).status().code() == 299)) {
            verdict = "the decoder read another second message: " + msg;
          }
        }
        if (m instanceof LastHttpContent && messages == 1 && verdict == null && r != 1) {
          verdict = "the decoder ended the first message in read " + r + " of 3";
        }
        ReferenceCountUtil.release(m);
      }
    }
    ch.finishAndReleaseAll();
    return verdict != null || messages == 2 ? verdict : "the decoder read " + messages + " messages";
  }

  /** A message with a body, then the next message. */
  private static String message(SplittableRandom random, boolean request) {
    StringBuilder m = new StringBuilder(request ? "POST /a HTTP/1.1\r\nHost: x\r\n" : "HTTP/1.1 200 OK\r\n");
    if (request && random.nextInt(4) == 0) {
      m.append("Content-Length: ").append(LENGTHS[random.nextInt(LENGTHS.length)]).append("\r\n\r\nhello");
    } else {
      m.append("Transfer-Encoding: chunked\r\n\r\n");
      for (int chunks = random.nextInt(3); chunks >= 0; chunks--) {
        m.append(SIZES[random.nextInt(SIZES.length)]).append("\r\nhello").append(random.nextInt(8) == 0 ? "" : "\r\n");
      }
      m.append(random.nextInt(3) == 0 ? LAST_CHUNKS[random.nextInt(LAST_CHUNKS.length)] : "0").append("\r\n")
          .append(random.nextInt(5) == 0 ? "T: 1\r\n\r\n" : "\r\n");
    }
    return m.append(request ? NEXT_REQUEST : NEXT_RESPONSE).toString();
  }

  /** Feeds the guard; the first message ended if the second one's head came out after it (its body: null). */
  private static Seen throughGuard(String message, boolean requests) {
    FramingGuard guard = requests ? FramingGuard.forRequests(EdgeLimits.DEFAULTS) : FramingGuard.forResponses();
    List<Failure> faults = new ArrayList<>();
    guard.bodyFault(faults::add);
    EmbeddedChannel ch = new EmbeddedChannel(guard);
    guard.expectResponseTo(false);
    byte[] bytes = message.getBytes(StandardCharsets.ISO_8859_1);
    int second = message.indexOf(requests ? NEXT_REQUEST : NEXT_RESPONSE, 20);
    StringBuilder passed = new StringBuilder();
    boolean refused = !write(ch, Unpooled.wrappedBuffer(bytes, 0, second));
    int nextAt = drain(ch, passed);
    boolean responseEnded = !requests && guard.reusable();
    if (responseEnded) {
      guard.expectResponseTo(false); // the next request went out on the connection
      nextAt = passed.length();
    }
    refused |= !write(ch, Unpooled.wrappedBuffer(bytes, second, bytes.length - second));
    int later = drain(ch, passed);
    if (requests && nextAt == -1) {
      nextAt = later;
    }
    refused |= nextAt == REFUSED || later == REFUSED || !faults.isEmpty() || !ch.isActive();
    ch.finishAndReleaseAll();
    if (refused) {
      return new Seen(Outcome.REFUSED, null, null, -1);
    }
    if (requests ? nextAt < 0 : !responseEnded) {
      return new Seen(Outcome.WAITING, null, passed.toString(), -1);
    }
    return new Seen(Outcome.ENDED, null, passed.toString(), nextAt);
  }

  private static final int REFUSED = -2;

  /**
   * Appends what the guard passed to {@code passed}; returns where in it a request for
   * {@code /next} begins, -1 if none came, or {@link #REFUSED} if the guard refused a head.
   */
  private static int drain(EmbeddedChannel ch, StringBuilder passed) {
    int nextAt = -1;
    for (Object m = ch.readInbound(); m != null; m = ch.readInbound()) {
      if (m instanceof ByteBuf b) {
        passed.append(b.toString(StandardCharsets.ISO_8859_1));
      } else if (m instanceof RawRequest r) {
        if (r.uri().equals("/next") && nextAt < 0) {
          nextAt = passed.length();
        }
        passed.append(new String(r.bytes(), StandardCharsets.ISO_8859_1));
      } else if (m instanceof HttpRequest stand && stand.decoderResult().isFailure()) {
        nextAt = REFUSED;
      }
      ReferenceCountUtil.release(m);
    }
    return nextAt;
  }

  /** Writes to the guard; false if it failed the connection (a backend guard says so with an exception). */
  private static boolean write(EmbeddedChannel ch, ByteBuf bytes) {
    if (!ch.isOpen()) {
      bytes.release();
      return false;
    }
    try {
      ch.writeInbound(bytes);
      return ch.isOpen();
    } catch (Rejection r) {
      return false;
    }
  }

  /** The decoded body of the first message as the generator wrote it (the guard passed it whole). */
  private static String bodyOf(String message, boolean requests) {
    String head = message.substring(0, message.indexOf("\r\n\r\n") + 4);
    if (head.contains("Content-Length")) {
      return "hello";
    }
    StringBuilder body = new StringBuilder();
    int at = head.length();
    while (true) {
      int eol = message.indexOf("\r\n", at);
      long size = ChunkLine.size(message.substring(at, eol));
      if (size == 0) {
        return body.toString();
      }
      body.append(message, eol + 2, eol + 2 + (int) size);
      at = eol + 2 + (int) size + 2;
    }
  }

  /** Feeds Netty's decoder, as Fairway configures it, what the guard passed, all at once. */
  private static Seen throughDecoder(String message, boolean requests) {
    EmbeddedChannel ch = new EmbeddedChannel(requests ? HeadAwareCodecs.requestDecoder(EdgeLimits.DEFAULTS)
        : HeadAwareCodecs.responseDecoder());
    ch.writeInbound(Unpooled.copiedBuffer(message, StandardCharsets.ISO_8859_1));
    StringBuilder body = new StringBuilder();
    int messages = 0;
    boolean ended = false;
    boolean failed = false;
    boolean nextCame = false;
    for (Object m = ch.readInbound(); m != null; m = ch.readInbound()) {
      failed |= ((HttpObject) m).decoderResult().isFailure();
      if (m instanceof HttpMessage msg) {
        messages++;
        nextCame |= messages == 2 && (msg instanceof HttpRequest r ? r.uri().equals("/next")
            : ((HttpResponse) msg).status().code() == 299);
      }
      if (m instanceof HttpContent c && messages == 1) {
        body.append(c.content().toString(StandardCharsets.ISO_8859_1));
        ended |= m instanceof LastHttpContent;
      }
      ReferenceCountUtil.release(m);
    }
    ch.finishAndReleaseAll();
    if (failed) {
      return new Seen(Outcome.REFUSED, null, null, -1);
    }
    if (!ended && !nextCame) {
      return new Seen(Outcome.WAITING, null, null, -1);
    }
    return new Seen(nextCame ? Outcome.ENDED : Outcome.WAITING, nextCame ? body.toString() : null, null, -1);
  }
}
