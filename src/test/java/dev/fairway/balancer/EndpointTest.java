package dev.fairway.balancer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class EndpointTest {

  @Test
  void capacityAndAvailabilityMakeOneLimit() {
    Endpoint e = new Endpoint("b1", "127.0.0.1", 9001, new WeightEpoch());
    e.setCapacity(3);
    e.setActive(2);
    assertThat(e.canTake()).isTrue();
    e.setAvailable(false);
    assertThat(e.canTake()).isFalse();
    assertThat(e.tryTake()).isFalse();
    e.setCapacity(5); // while unavailable: remembered, still takes none
    assertThat(e.capacity()).isEqualTo(5);
    assertThat(e.tryTake()).isFalse();
    e.setAvailable(true);
    assertThat(e.available()).isTrue();
    assertThat(e.tryTake()).isTrue();
    assertThat(e.tryTake()).isTrue();
    assertThat(e.tryTake()).isTrue();
    assertThat(e.tryTake()).isFalse();
    assertThat(e.active()).isEqualTo(5);
    e.release();
    assertThat(e.active()).isEqualTo(4);
    assertThat(e.canTake()).isTrue();
  }

  @Test
  void onlyARealWeightChangeMovesTheEpoch() {
    WeightEpoch epoch = new WeightEpoch();
    Endpoint e = new Endpoint("b1", "127.0.0.1", 9001, epoch);
    e.setWeight(1.0); // the initial weight
    assertThat(epoch.get()).isZero();
    e.setWeight(2.5);
    assertThat(epoch.get()).isEqualTo(1);
    assertThat(e.weight()).isEqualTo(2.5);
    e.setWeight(Double.NaN);
    assertThat(epoch.get()).isEqualTo(2);
    e.setWeight(Double.NaN);
    assertThat(epoch.get()).isEqualTo(2);
  }

  @Test
  void eachTableHasAnEpochOfItsOwn() {
    WeightEpoch mine = new WeightEpoch();
    WeightEpoch other = new WeightEpoch();
    Endpoint b1 = new Endpoint("b1", "127.0.0.1", 9001, mine);
    Endpoint b2 = new Endpoint("b2", "127.0.0.1", 9002, mine);
    Endpoint elsewhere = new Endpoint("b1", "127.0.0.1", 9001, other);
    b1.setWeight(2);
    b2.setWeight(3);
    elsewhere.setWeight(4);
    assertThat(mine.get() + " " + other.get()).isEqualTo("2 1");
  }

  @Test
  void aStrategyRefusesMembersOfTwoEpochs() {
    List<Endpoint> mixed = List.of(new Endpoint("b1", "127.0.0.1", 9001, new WeightEpoch()),
        new Endpoint("b2", "127.0.0.1", 9002, new WeightEpoch()));
    assertThatThrownBy(() -> new WeightedRoundRobin().pick(mixed, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("b1 and b2");
  }

  @Test
  void streaksCountRunsAsTheOutlierDetectorDoes() {
    Endpoint e = new Endpoint("b1", "127.0.0.1", 9001, new WeightEpoch());
    StringBuilder tripped = new StringBuilder();
    for (Outcome o : List.of(Outcome.NO_ANSWER, Outcome.NO_ANSWER, Outcome.ABANDONED, Outcome.OVERLOADED,
        Outcome.NO_ANSWER, Outcome.SERVER_ERROR, Outcome.SERVER_ERROR, Outcome.ABANDONED, Outcome.GATEWAY_FAILURE,
        Outcome.SUCCESS, Outcome.SERVER_ERROR)) {
      tripped.append(e.countStreak(o, 3, 3) ? "T" : ".");
    }
    // no answers run to 3 through an abandoned and an overloaded one; 5xx runs to 3 with the gateway failure
    assertThat(tripped.toString()).isEqualTo("....T...T..");
  }
}
