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
 */
class FramingDifferentialTest {
  private static final String NEXT_REQUEST = "GET /next HTTP/1.1\r\nHost: x\r\n\r\n";
  private static final String NEXT_RESPONSE = "HTTP/1.1 299 Next\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
  private static final String[] SIZES = {"5", "05", "0005", "5", "7fffffff", "80000000", "80000005", "ffffffff",
      "100000000", "100000005", "1000000005", "7fffffffffffffff", "8000000000000000", "ffffffffffffffff",
      "10000000000000000", "10000000000000005", "00000000000000000005", "5;a=b", "5 ;a", "5;a=\"x;y\"", "5 ", "5\t",
      " 5", "5 5", "5;", "5;a=", "5,", "+5", "-5", "0x5", "5\u000b", "5;a\u0001", "F", "f"};
  private static final String[] LENGTHS = {"5", "05", "5 ", "2147483648", "4294967301", "9223372036854775807",
      "99999999999999999999", "+5", "5,5", "0x5"};

  /** How one side saw the first message. */
  private enum Outcome { REFUSED, ENDED, WAITING }

  /** @param passed what the guard passed to the decoder (its own view: null) */
  private record Seen(Outcome outcome, String body, String passed) {
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
      Seen netty = throughDecoder(guard.passed(), requests);
      if (!guard.agrees(netty)) {
        disagreements.add(message.replace("\r", "\\r").replace("\n", "\\n") + ": guard " + guard + ", Netty " + netty);
      }
      if (guard.outcome() == Outcome.ENDED) {
        ended++;
      }
    }
    assertThat(disagreements).isEmpty();
    assertThat(ended).as("messages passed whole").isGreaterThan(rounds / 10);
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
      m.append(random.nextInt(6) == 0 ? "0;x=y\r\n" : "0\r\n").append(random.nextInt(5) == 0 ? "T: 1\r\n\r\n" : "\r\n");
    }
    return m.append(request ? NEXT_REQUEST : NEXT_RESPONSE).toString();
  }

  /** Feeds the guard; the first message ended if the second one's head came out after it. */
  private static Seen throughGuard(String message, boolean requests) {
    FramingGuard guard = requests ? FramingGuard.forRequests(EdgeLimits.DEFAULTS) : FramingGuard.forResponses();
    List<Failure> faults = new ArrayList<>();
    guard.bodyFault(faults::add);
    EmbeddedChannel ch = new EmbeddedChannel(guard);
    guard.expectResponseTo(false);
    byte[] bytes = message.getBytes(StandardCharsets.ISO_8859_1);
    int second = message.indexOf(requests ? NEXT_REQUEST : NEXT_RESPONSE, 20);
    boolean refused = !write(ch, Unpooled.wrappedBuffer(bytes, 0, second));
    boolean responseEnded = !requests && guard.reusable();
    if (responseEnded) {
      guard.expectResponseTo(false); // the next request went out on the connection
    }
    refused |= !write(ch, Unpooled.wrappedBuffer(bytes, second, bytes.length - second));
    StringBuilder passed = new StringBuilder();
    boolean nextCame = false;
    refused |= !faults.isEmpty() || !ch.isActive();
    for (Object m = ch.readInbound(); m != null; m = ch.readInbound()) {
      if (m instanceof ByteBuf b) {
        passed.append(b.toString(StandardCharsets.ISO_8859_1));
      } else if (m instanceof RawRequest r) {
        nextCame = r.uri().equals("/next");
        passed.append(new String(r.bytes(), StandardCharsets.ISO_8859_1));
      } else if (m instanceof HttpRequest stand) {
        refused |= stand.decoderResult().isFailure();
      }
      ReferenceCountUtil.release(m);
    }
    ch.finishAndReleaseAll();
    if (refused) {
      return new Seen(Outcome.REFUSED, null, null);
    }
    if (!requests) {
      nextCame = responseEnded;
    }
    if (!nextCame) {
      return new Seen(Outcome.WAITING, null, passed.toString());
    }
    return new Seen(Outcome.ENDED, bodyOf(message, requests), passed.toString());
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
      return new Seen(Outcome.REFUSED, null, null);
    }
    if (!ended && !nextCame) {
      return new Seen(Outcome.WAITING, null, null);
    }
    return new Seen(nextCame ? Outcome.ENDED : Outcome.WAITING, nextCame ? body.toString() : null, null);
  }
}
