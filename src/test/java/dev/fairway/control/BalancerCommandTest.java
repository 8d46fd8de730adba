package dev.fairway.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The commands' JSON must stay what admin listeners and other cluster members send and parse. */
class BalancerCommandTest {

  @Test
  void eachCommandWritesTheWireTextItAlwaysHad() {
    assertThat(new BalancerCommand.LameDuck("b1", true).toJson().encode())
        .isEqualTo("{\"op\":\"lame-duck\",\"id\":\"b1\",\"on\":true}");
    assertThat(new BalancerCommand.LameDuck("b1", false).toJson().encode())
        .isEqualTo("{\"op\":\"lame-duck\",\"id\":\"b1\",\"on\":false}");
    assertThat(new BalancerCommand.RemoveBackend("api", "b2").toJson().encode())
        .isEqualTo("{\"op\":\"remove-backend\",\"service\":\"api\",\"id\":\"b2\"}");
    JsonArray body = new JsonArray().add(new JsonObject().put("url", "http://127.0.0.1:9001").put("capacity", 3));
    assertThat(new BalancerCommand.AddBackends("api", body).toJson().encode())
        .isEqualTo("{\"op\":\"add-backends\",\"service\":\"api\",\"backends\":[{\"url\":\"http://127.0.0.1:9001\","
            + "\"capacity\":3}]}");
  }

  @Test
  void parsingTheWireTextGivesTheSameCommandAndText() {
    for (String text : new String[] {
        "{\"op\":\"lame-duck\",\"id\":\"b1\",\"on\":false}",
        "{\"op\":\"remove-backend\",\"service\":\"api\",\"id\":\"b2\"}",
        "{\"op\":\"add-backends\",\"service\":\"api\",\"backends\":[{\"url\":\"http://h:1\",\"capacity\":3}]}",
        "{\"op\":\"add-backends\",\"service\":\"api\",\"backends\":\"not an array\"}"}) {
      assertThat(BalancerCommand.fromJson(new JsonObject(text)).toJson().encode()).isEqualTo(text);
    }
    assertThat(BalancerCommand.fromJson(new JsonObject("{\"op\":\"lame-duck\",\"id\":\"b1\",\"on\":false}")))
        .isEqualTo(new BalancerCommand.LameDuck("b1", false));
  }

  @Test
  void missingFieldsAreLeftToTheTable() {
    assertThat(BalancerCommand.fromJson(new JsonObject("{\"op\":\"lame-duck\",\"id\":\"b1\"}")))
        .as("on defaults to true").isEqualTo(new BalancerCommand.LameDuck("b1", true));
    assertThat(BalancerCommand.fromJson(new JsonObject("{\"op\":\"remove-backend\"}")))
        .isEqualTo(new BalancerCommand.RemoveBackend(null, null));
  }

  @Test
  void anUnknownOrMalformedCommandIsRefused() {
    assertThatThrownBy(() -> BalancerCommand.fromJson(new JsonObject("{\"op\":\"reboot\"}")))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("unknown command reboot");
    assertThatThrownBy(() -> BalancerCommand.fromJson(new JsonObject("{}")))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("unknown command null");
    assertThatThrownBy(() -> BalancerCommand.fromJson(new JsonObject("{\"op\":\"lame-duck\",\"on\":\"yes\"}")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("malformed command lame-duck");
  }

  @Test
  void describeNamesTheCommandForClusterLogs() {
    assertThat(new BalancerCommand.LameDuck("b1", true).describe()).isEqualTo("lame-duck of b1");
    assertThat(new BalancerCommand.LameDuck("b1", false).describe()).isEqualTo("end of lame-duck of b1");
    assertThat(new BalancerCommand.AddBackends("api", null).describe()).isEqualTo("add-backends to api");
    assertThat(new BalancerCommand.RemoveBackend("api", "b2").describe()).isEqualTo("remove-backend b2 from api");
  }
}
