package dev.fairway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairway.cluster.IdAssignment.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class IdAssignmentTest {
  private static final long GRACE = 30_000;

  /** Members named by the arguments, each with node id {@code n-NAME} ({@code NAME@ID} sets another). */
  private static List<Member> members(String... names) {
    List<Member> out = new ArrayList<>();
    for (String n : names) {
      int at = n.indexOf('@');
      out.add(at < 0 ? new Member("n-" + n, n) : new Member(n.substring(at + 1), n.substring(0, at)));
    }
    return out;
  }

  private static IdAssignment of(String... names) {
    return IdAssignment.EMPTY.next(members(names), 0, GRACE);
  }

  @Test
  void newNamesTakeTheLowestFreeIdsInNameOrder() {
    assertThat(of("c", "a", "b")).hasToString("a=0 b=1 c=2");
    IdAssignment c = of("c");
    assertThat(c.next(members("c", "a"), 0, GRACE)).hasToString("a=1 c=0");
  }

  @Test
  void aLeaverKeepsItsIdReservedAndAReturnWithinTheGraceReclaimsIt() {
    IdAssignment left = of("a", "b", "c").next(members("a", "c"), 1_000, GRACE);
    assertThat(left).hasToString("a=0 c=2 (b=1 until 31000)");
    assertThat(left.count()).isEqualTo(3);
    assertThat(left.nextExpiry()).hasValue(31_000);
    // b restarts as a new node (another node id) under the same name.
    IdAssignment back = left.next(members("a", "b@n-b2", "c"), 30_999, GRACE);
    assertThat(back).hasToString("a=0 b=1 c=2");
    assertThat(back.idOf("n-b2")).hasValue(1);
    assertThat(back.nextExpiry()).isEmpty();
  }

  @Test
  void anExpiredReservationIsFilledByTheHighestIdAlone() {
    IdAssignment left = of("a", "b", "c", "d").next(members("a", "c", "d"), 0, GRACE);
    assertThat(left.next(members("a", "c", "d"), 29_999, GRACE)).isSameAs(left);
    assertThat(left.next(members("a", "c", "d"), 30_000, GRACE)).hasToString("a=0 c=2 d=1");
    // A late return gets a fresh id like any new name.
    assertThat(left.next(members("a", "c", "d"), 30_000, GRACE).next(members("a", "b", "c", "d"), 30_001, GRACE))
        .hasToString("a=0 b=3 c=2 d=1");
  }

  @Test
  void aHoleGoesToANewNameBeforeAnyoneMoves() {
    IdAssignment left = of("a", "b", "c").next(members("a", "c"), 0, GRACE);
    assertThat(left.next(members("a", "c", "e", "d"), 40_000, GRACE)).hasToString("a=0 c=2 d=1 e=3");
  }

  @Test
  void twoLeavingAtOnce() {
    IdAssignment four = of("a", "b", "c", "d", "e");
    assertThat(four.next(members("a", "d", "e"), 0, 0)).hasToString("a=0 d=2 e=1");
    IdAssignment reserved = four.next(members("a", "d", "e"), 0, GRACE);
    assertThat(reserved).hasToString("a=0 d=3 e=4 (b=1 until 30000) (c=2 until 30000)");
    assertThat(reserved.next(members("a", "d", "e"), 30_000, GRACE)).hasToString("a=0 d=2 e=1");
    // The reservations of b and c outlive a's: the highest reservation moves, no live member does.
    IdAssignment aToo = reserved.next(members("d", "e"), 10_000, 0);
    assertThat(aToo).hasToString("d=3 e=0 (b=1 until 30000) (c=2 until 30000)");
  }

  @Test
  void aDuplicateNameGetsAnIdOfItsOwnAndTheHolderKeepsTheName() {
    IdAssignment a = of("a@n2", "b");
    assertThat(a.next(members("a@n2", "a@n1", "b"), 0, GRACE)).hasToString("a=0 a#n1=2 b=1");
    assertThat(of("a@n2", "a@n1", "b")).hasToString("a=0 a#n2=1 b=2");
    assertThat(of("a@n2", "a@n1", "b").idOf("n1")).hasValue(0);
    // The holder crashed and its restart joined before the crash was noticed: once it is, the
    // restart takes the name's id and its own is released, not reserved.
    IdAssignment both = a.next(members("a@n2", "a@n1", "b"), 0, GRACE);
    assertThat(both.next(members("a@n1", "b"), 0, GRACE)).hasToString("a=0 b=1");
  }

  @Test
  void theSameInputsGiveTheSameAnswerOnEveryMember() {
    List<Member> forward = members("a", "b", "c", "a@x");
    List<Member> backward = new ArrayList<>(forward);
    java.util.Collections.reverse(backward);
    backward.add(forward.get(0));
    assertThat(IdAssignment.EMPTY.next(backward, 0, GRACE)).isEqualTo(IdAssignment.EMPTY.next(forward, 0, GRACE));
  }

  @Test
  void changesReadAsOneLineEach() {
    IdAssignment three = of("a", "b", "c");
    IdAssignment left = three.next(members("a", "b"), 0, GRACE);
    IdAssignment back = left.next(members("a", "b", "c"), 5_000, GRACE);
    IdAssignment bGone = back.next(members("a", "c"), 10_000, 0);
    IdAssignment dup = bGone.next(members("a", "c", "c@z"), 10_000, 0);
    String story = List.of(IdChanges.between(three, left, 0), IdChanges.between(left, back, 5_000),
            IdChanges.between(back, bGone, 10_000), IdChanges.between(bGone, dup, 10_000)).stream()
        .map(notes -> notes.stream().map(n -> (n.warning() ? "WARN " : "") + n.text()).collect(Collectors.joining("; ")))
        .collect(Collectors.joining(" | "));
    assertThat(story).isEqualTo("c left, id 2 reserved for 30 s | c came back, reclaimed id 2"
        + " | b left, id 1 released; c moved from id 2 to id 1"
        + " | WARN duplicate node name c: node z gets an id of its own, 2; give each member its own cluster.nodeName");
  }
}
