package dev.fairway.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClientPositionTest {
  private static final String A = "0a3c9a8e-7b1f-4c55-9a63-2d5e1f0b7c11";
  private static final String B = "7f00d2c4-1e5b-4a0e-b6d3-93c2aa41e0f2";
  private static final String C = "c1e5b7a0-4d3f-4f2b-8e6a-0b9d3c7e5a14";

  @Test
  void positionIsTheRankInUuidStringOrder() {
    List<String> members = List.of(C, A, B);
    assertThat(ClientPosition.among(members, A)).isEqualTo(new ClientPosition(0, 3));
    assertThat(ClientPosition.among(members, B)).isEqualTo(new ClientPosition(1, 3));
    assertThat(ClientPosition.among(members, C)).isEqualTo(new ClientPosition(2, 3));
  }

  @Test
  void leavesAndJoinsShiftTheIds() {
    assertThat(ClientPosition.among(List.of(B, C), B)).isEqualTo(new ClientPosition(0, 2));
    assertThat(ClientPosition.among(List.of(B, C), C)).isEqualTo(new ClientPosition(1, 2));
    assertThat(ClientPosition.among(List.of(C), C)).isEqualTo(new ClientPosition(0, 1));
  }

  @Test
  void everyMemberGetsADistinctIdFromZeroToCountMinusOne() {
    List<String> members = List.of(C, B, A);
    assertThat(members.stream().map(m -> ClientPosition.among(members, m).clientId()))
        .containsExactlyInAnyOrder(0, 1, 2);
  }

  @Test
  void selfCountsEvenWhenMissingAndDuplicatesCountOnce() {
    assertThat(ClientPosition.among(List.of(), A)).isEqualTo(new ClientPosition(0, 1));
    assertThat(ClientPosition.among(List.of(A, C), B)).isEqualTo(new ClientPosition(1, 3));
    assertThat(ClientPosition.among(List.of(A, A, B), B)).isEqualTo(new ClientPosition(1, 2));
  }

  @Test
  void stringOrderNotNumericOrder() {
    // Upper-case sorts before lower-case; names are compared as plain strings everywhere.
    assertThat(ClientPosition.among(List.of("b", "A", "a", "B"), "a")).isEqualTo(new ClientPosition(2, 4));
  }

  @Test
  void rejectsImpossiblePositions() {
    assertThatThrownBy(() -> new ClientPosition(3, 3)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ClientPosition(0, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
