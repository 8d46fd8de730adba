package dev.fairway.accesslog;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class AccessLogWriterTest {
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger access = (Logger) LoggerFactory.getLogger("fairway.access");

  @BeforeEach
  void attach() {
    logged.start();
    access.addAppender(logged);
  }

  @AfterEach
  void detach() {
    access.detachAppender(logged);
  }

  private List<String> messages() {
    List<String> out = new ArrayList<>();
    logged.list.forEach(e -> out.add(e.getFormattedMessage()));
    return out;
  }

  @Test
  void logsEachLineAsItsOwnEventInOrderWhenDrained() {
    AccessLogWriter w = new AccessLogWriter();
    assertThat(w.offer("a")).isTrue();
    assertThat(w.offer("b")).isTrue();
    assertThat(messages()).isEmpty();
    w.drain();
    assertThat(messages()).containsExactly("a", "b");
  }

  @Test
  void marksTheLastLineOfEachDrainSoAGatheringAppenderWritesItOut() {
    AccessLogWriter w = new AccessLogWriter();
    w.offer("a");
    w.offer("b");
    w.drain();
    w.offer("c");
    w.drain();
    List<String> marked = new ArrayList<>();
    logged.list.forEach(e -> marked.add(e.getFormattedMessage() + ":"
        + (e.getMarkerList() != null && e.getMarkerList().contains(AccessLogWriter.BATCH_END))));
    assertThat(marked).containsExactly("a:false", "b:true", "c:true");
  }

  @Test
  void dropsLinesBeyondCapacityAndTakesMoreOnceDrained() {
    AccessLogWriter w = new AccessLogWriter();
    for (int i = 0; i < AccessLogWriter.CAPACITY; i++) {
      assertThat(w.offer("line " + i)).isTrue();
    }
    assertThat(w.offer("one too many")).isFalse();
    w.drain();
    assertThat(messages()).hasSize(AccessLogWriter.CAPACITY).startsWith("line 0").endsWith("line 8191")
        .doesNotContain("one too many");
    assertThat(w.offer("after")).isTrue();
    w.drain();
    assertThat(messages()).last().isEqualTo("after");
  }
}
