package dev.fairway.accesslog;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import org.slf4j.Marker;

/**
 * The shipped {@code logback.xml}'s appender for the access log: writes lines to standard output
 * a batch at a time instead of one write (and one system call) a line.
 *
 * <p>Example: the {@link AccessLogWriter} logs 150 queued lines of about 270 bytes every 5 ms;
 * this appender gathers them into writes of at most {@value #WRITE_BYTES} bytes, 10 system calls
 * instead of 150, and writes out what is left when it sees the batch's last line (marked
 * {@link AccessLogWriter#BATCH_END}), so no line waits longer than the writer's 5 ms period.
 * Every write holds whole lines and is at most {@code PIPE_BUF} long, so when standard output is a
 * pipe (a container's log, journald), Fairway's other log lines never land inside an access-log
 * line. Logback's {@code ConsoleAppender} writes through {@code System.out}, which flushes after
 * every line.
 */
public final class AccessLogAppender extends OutputStreamAppender<ILoggingEvent> {
  /** The most one write holds: Linux's {@code PIPE_BUF}, the largest write a pipe keeps whole. */
  static final int WRITE_BYTES = 4096;

  private final OutputStream target;

  /** Writes to the process's standard output. */
  public AccessLogAppender() {
    this(new FileOutputStream(FileDescriptor.out));
  }

  /** Writes to {@code target} (tests). */
  AccessLogAppender(OutputStream target) {
    this.target = target;
    setImmediateFlush(false);
  }

  @Override
  public void start() {
    setOutputStream(new WholeLines(target));
    super.start();
  }

  @Override
  protected void subAppend(ILoggingEvent event) {
    super.subAppend(event);
    List<Marker> markers = event.getMarkerList();
    if (markers != null && markers.contains(AccessLogWriter.BATCH_END) && isStarted()) {
      streamWriteLock.lock();
      try {
        getOutputStream().flush();
      } catch (IOException e) {
        addError("access log: writing to standard output failed", e);
      } finally {
        streamWriteLock.unlock();
      }
    }
  }

  /** Writes out what is buffered but leaves standard output open for the rest of the process. */
  @Override
  protected void closeOutputStream() {
    OutputStream out = getOutputStream();
    if (out != null) {
      try {
        out.flush();
      } catch (IOException e) {
        addError("access log: writing to standard output failed", e);
      }
    }
  }

  /**
   * Buffers whole encoded events (one {@code write} each) and passes them on in writes of at most
   * {@value #WRITE_BYTES} bytes that never split an event; a larger event is written alone.
   */
  private static final class WholeLines extends OutputStream {
    private final OutputStream out;
    private final byte[] buf = new byte[WRITE_BYTES];
    private int count;

    WholeLines(OutputStream out) {
      this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (len > buf.length - count) {
        writeBuffer();
      }
      if (len >= buf.length) {
        out.write(b, off, len);
      } else {
        System.arraycopy(b, off, buf, count, len);
        count += len;
      }
    }

    @Override
    public void flush() throws IOException {
      writeBuffer();
      out.flush();
    }

    private void writeBuffer() throws IOException {
      if (count > 0) {
        int n = count;
        count = 0;
        out.write(buf, 0, n);
      }
    }
  }
}
