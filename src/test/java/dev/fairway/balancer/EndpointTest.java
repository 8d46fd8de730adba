package dev.fairway.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EndpointTest {

  @Test
  void capacityAndAvailabilityMakeOneLimit() {
    Endpoint e = new Endpoint("b1", "127.0.0.1", 9001);
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
    Endpoint e = new Endpoint("b1", "127.0.0.1", 9001);
    long epoch = Endpoint.weightEpoch();
    e.setWeight(1.0); // the initial weight
    assertThat(Endpoint.weightEpoch()).isEqualTo(epoch);
    e.setWeight(2.5);
    assertThat(Endpoint.weightEpoch()).isNotEqualTo(epoch);
    assertThat(e.weight()).isEqualTo(2.5);
    e.setWeight(Double.NaN);
    long afterNaN = Endpoint.weightEpoch();
    e.setWeight(Double.NaN);
    assertThat(Endpoint.weightEpoch()).isEqualTo(afterNaN);
  }
}
