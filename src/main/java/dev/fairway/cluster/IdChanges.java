package dev.fairway.cluster;

import dev.fairway.cluster.IdAssignment.Claim;
import dev.fairway.cluster.IdAssignment.Reservation;
import java.util.ArrayList;
import java.util.List;

/**
 * What changed between two {@link IdAssignment}s, as log lines.
 *
 * <p>Example: from {@code a=0 b=1 c=2} to {@code a=0 b=1 (c=2 until now+30 s)} the one line is
 * {@code c left, id 2 reserved for 30 s}; then to {@code a=0 b=1 c=2} it is
 * {@code c came back, reclaimed id 2}; a reservation that ran out while {@code c}, the highest
 * id, moved into the hole reads {@code b's reservation of id 1 expired} and
 * {@code c moved from id 2 to id 1}.
 *
 * <p>Every member describes the change from the assignment it saw last to the one it sees now,
 * whichever member wrote it, so all members log the same story.
 */
public final class IdChanges {
  private IdChanges() {
  }

  /**
   * One line; {@code warning} for a duplicate node name.
   *
   * @param warning whether the line reports a misconfiguration
   * @param text    the line
   */
  public record Note(boolean warning, String text) {
  }

  /** The changes from {@code before} to {@code after}, departures and expiries first. */
  public static List<Note> between(IdAssignment before, IdAssignment after, long nowMs) {
    List<Note> notes = new ArrayList<>();
    before.live().forEach((key, was) -> {
      if (!after.live().containsKey(key)) {
        Reservation r = after.reserved().get(key);
        notes.add(info(r == null ? name(key) + " left, id " + was.id() + " released"
            : name(key) + " left, id " + r.id() + " reserved for " + duration(r.untilMs() - nowMs)));
      }
    });
    before.reserved().forEach((key, r) -> {
      if (!after.reserved().containsKey(key) && !after.live().containsKey(key)) {
        notes.add(info(key + "'s reservation of id " + r.id() + " expired"));
      }
    });
    after.reserved().forEach((key, r) -> {
      Reservation was = before.reserved().get(key);
      if (was != null && was.id() != r.id()) {
        notes.add(info(key + "'s reserved id moved from " + was.id() + " to " + r.id()));
      }
    });
    after.live().forEach((key, now) -> {
      Claim was = before.live().get(key);
      Reservation held = before.reserved().get(key);
      if (was != null && was.id() != now.id()) {
        notes.add(info(name(key) + " moved from id " + was.id() + " to id " + now.id()));
      } else if (held != null) {
        notes.add(info(key + " came back, " + (held.id() == now.id() ? "reclaimed id " + now.id()
            : "id " + now.id() + " (its id " + held.id() + " closed a gap)")));
      } else if (was == null && IdAssignment.isDuplicate(key)) {
        String name = key.substring(0, key.indexOf(IdAssignment.DUPLICATE));
        notes.add(new Note(true, "duplicate node name " + name + ": node " + now.nodeId() + " gets an id of its own, "
            + now.id() + "; give each member its own cluster.nodeName"));
      } else if (was == null) {
        notes.add(info(key + " joined as id " + now.id()));
      }
    });
    return notes;
  }

  private static Note info(String text) {
    return new Note(false, text);
  }

  /** A duplicate member's key shows as its name. */
  private static String name(String key) {
    int at = key.indexOf(IdAssignment.DUPLICATE);
    return at < 0 ? key : key.substring(0, at) + " (node " + key.substring(at + 1) + ")";
  }

  /** {@code 30 s}, or {@code 800 ms} below a second. */
  static String duration(long ms) {
    return ms < 1000 ? Math.max(0, ms) + " ms" : Math.round(ms / 1000.0) + " s";
  }
}
