package dev.fairway.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RuntimeChangeTest {
  private static final Stamp T1 = new Stamp(1_000, "a");

  @Test
  void anAddOfTwoBackendsIsTwoChangesKeyedByServiceAndIdWithTheIdFilledIn() {
    JsonArray body = new JsonArray().add(new JsonObject().put("url", "http://10.0.0.9:80").put("capacity", 3))
        .add(new JsonObject().put("id", "b10").put("url", "http://10.0.0.10:80").put("capacity", 4));
    List<RuntimeChange> changes = RuntimeChange.of(new BalancerCommand.AddBackends("api", body),
        List.of("10.0.0.9:80", "b10"), T1);
    assertThat(changes.stream().map(c -> c.key() + " " + c.command().toJson().encode()).toList()).containsExactly(
        "backend/api/10.0.0.9:80 {\"op\":\"add-backends\",\"service\":\"api\",\"backends\":"
            + "[{\"url\":\"http://10.0.0.9:80\",\"capacity\":3,\"id\":\"10.0.0.9:80\"}]}",
        "backend/api/b10 {\"op\":\"add-backends\",\"service\":\"api\",\"backends\":"
            + "[{\"id\":\"b10\",\"url\":\"http://10.0.0.10:80\",\"capacity\":4}]}");
  }

  @Test
  void aRemovalSharesTheKeyOfTheAddAndALameDuckHasItsOwn() {
    assertThat(RuntimeChange.of(new BalancerCommand.RemoveBackend("api", "b10"), List.of(), T1).get(0).key())
        .isEqualTo("backend/api/b10");
    assertThat(RuntimeChange.of(new BalancerCommand.LameDuck("b10", false), List.of(), T1).get(0).key())
        .isEqualTo("lame-duck/b10");
  }

  @Test
  void jsonRoundTripsAndIncompleteJsonIsRejected() {
    RuntimeChange c = RuntimeChange.of(new BalancerCommand.LameDuck("b3", true), List.of(), new Stamp(42, "x")).get(0);
    assertThat(c.toJson().encode()).isEqualTo(
        "{\"key\":\"lame-duck/b3\",\"at\":42,\"origin\":\"x\",\"command\":{\"op\":\"lame-duck\",\"id\":\"b3\",\"on\":true}}");
    assertThat(RuntimeChange.fromJson(c.toJson())).isEqualTo(c);
    assertThatThrownBy(() -> RuntimeChange.fromJson(new JsonObject().put("key", "lame-duck/b3")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("incomplete runtime change");
  }

  @Test
  void replayAppliesBackendChangesBeforeLameDucksEachByStamp() {
    List<RuntimeChange> changes = new ArrayList<>(List.of(
        change(new BalancerCommand.LameDuck("b9", true), 5, "a"),
        change(new BalancerCommand.RemoveBackend("api", "b1"), 9, "a"),
        change(new BalancerCommand.LameDuck("b2", true), 1, "b"),
        change(new BalancerCommand.RemoveBackend("api", "b9"), 7, "b"),
        change(new BalancerCommand.RemoveBackend("api", "b8"), 7, "a")));
    changes.sort(RuntimeChange.REPLAY_ORDER);
    assertThat(changes.stream().map(c -> c.key() + "@" + c.stamp().atMicros()).toList()).containsExactly(
        "backend/api/b8@7", "backend/api/b9@7", "backend/api/b1@9", "lame-duck/b2@1", "lame-duck/b9@5");
  }

  @Test
  void stampsOrderByTimeThenOrigin() {
    assertThat(new Stamp(2, "a").after(new Stamp(1, "z"))).isTrue();
    assertThat(new Stamp(1, "b").after(new Stamp(1, "a"))).isTrue();
    assertThat(new Stamp(1, "a").after(new Stamp(1, "a"))).isFalse();
    assertThat(new Stamp(1, "a").after(null)).isTrue();
  }

  private static RuntimeChange change(BalancerCommand cmd, long at, String origin) {
    return RuntimeChange.of(cmd, List.of(), new Stamp(at, origin)).get(0);
  }
}
