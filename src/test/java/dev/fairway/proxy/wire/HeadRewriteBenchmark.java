package dev.fairway.proxy.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The two head rewrites of one small HTTP/1.1 exchange, as wrk's requests and nginx's answers
 * make them: the backend's request head from the client's ({@link RawRequest#toBackend}) and the
 * client's response head from the backend's ({@link RawResponse#toClient}), on the pooled
 * allocator the proxy uses. In this package because both types' constructors are the reader's.
 *
 * <p>Example: {@code bench/jmh.sh HeadRewrite -f 1 -wi 3 -w 2s -i 5 -r 2s} gives ns per exchange.
 */
@State(Scope.Thread)
public class HeadRewriteBenchmark {
  private static final byte[] REQUEST = "GET / HTTP/1.1\r\nHost: 127.0.0.1:18081\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] RESPONSE = ("HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Sat, 28 Nov 2026 11:00:00 GMT\r\n"
      + "Content-Type: text/plain\r\nContent-Length: 6\r\nConnection: keep-alive\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
  private static final String REQUEST_ID = RequestId.generate();
  private final PooledByteBufAllocator alloc = new PooledByteBufAllocator(true);

  @Benchmark
  public int exchange() {
    RawRequest req = new RawRequest(REQUEST);
    req.toBackend("127.0.0.1", false, req.host(), 0, "127.0.0.1:19001", ForwardingRules.VIA_TOKEN, alloc);
    int n = req.backendHead().readableBytes();
    req.release();
    RawResponse resp = new RawResponse(RESPONSE, RESPONSE.length, 200, 6);
    resp.requestId(REQUEST_ID);
    ByteBuf out = resp.toClient(false, false, alloc);
    n += out.readableBytes();
    out.release();
    return n;
  }
}
