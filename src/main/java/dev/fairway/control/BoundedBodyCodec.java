package dev.fairway.control;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.WriteStream;
import io.vertx.ext.web.codec.BodyCodec;
import io.vertx.ext.web.codec.spi.BodyStream;
import java.nio.charset.StandardCharsets;

/**
 * A WebClient body codec that keeps at most {@code limit} bytes of a response body, decoded as
 * UTF-8, and drops the rest as it arrives; the response is still read to its end.
 *
 * <p>Example: with {@code limit = 4}, a body sent as {@code "he"}, {@code "llo"} yields
 * {@code "hell"}; with {@code limit = 0} every body yields {@code ""} and nothing is kept.
 */
final class BoundedBodyCodec implements BodyCodec<String> {
  private final int limit;

  BoundedBodyCodec(int limit) {
    this.limit = limit;
  }

  @Override
  public BodyStream<String> stream() {
    return new Stream(limit);
  }

  private static final class Stream implements BodyStream<String> {
    private final int limit;
    private final Buffer kept = Buffer.buffer();
    private final Promise<String> result = Promise.promise();

    Stream(int limit) {
      this.limit = limit;
    }

    @Override
    public Future<String> result() {
      return result.future();
    }

    @Override
    public void handle(Throwable failure) {
      result.tryFail(failure);
    }

    @Override
    public Future<Void> write(Buffer data) {
      int room = limit - kept.length();
      if (room > 0) {
        kept.appendBuffer(data, 0, Math.min(room, data.length()));
      }
      return Future.succeededFuture();
    }

    @Override
    public Future<Void> end() {
      result.tryComplete(kept.toString(StandardCharsets.UTF_8));
      return Future.succeededFuture();
    }

    @Override
    public WriteStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
      return this;
    }

    @Override
    public WriteStream<Buffer> setWriteQueueMaxSize(int maxSize) {
      return this;
    }

    @Override
    public boolean writeQueueFull() {
      return false;
    }

    @Override
    public WriteStream<Buffer> drainHandler(Handler<Void> handler) {
      return this;
    }
  }
}
