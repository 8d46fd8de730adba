package dev.fairway.overload;

import java.util.Locale;

/**
 * How much a request matters when there is not room for all (the SRE book's criticality), most
 * important first.
 *
 * <p>Example: {@code parse("Sheddable-Plus")} and {@code parse("SHEDDABLE_PLUS")} are
 * {@link #SHEDDABLE_PLUS}, whose {@link #wireName()} is {@code sheddable-plus}; {@code parse("x")}
 * is {@code null} (the service's default applies). {@code CRITICAL_PLUS.outranks(CRITICAL)} is true.
 */
public enum Criticality {
  /** Served before everything else; the last to be shed. */
  CRITICAL_PLUS("critical-plus"),
  /** The default for requests that say nothing. */
  CRITICAL("critical"),
  /** May be shed under overload, before {@link #SHEDDABLE}'s betters. */
  SHEDDABLE_PLUS("sheddable-plus"),
  /** Shed first: batch work, prefetches, retries that can wait. */
  SHEDDABLE("sheddable");

  /** Every class, most important first (the order of {@link #rank()}). */
  public static final Criticality[] ALL = values();

  private final String wireName;

  Criticality(String wireName) {
    this.wireName = wireName;
  }

  /** The header and config spelling: {@code critical-plus}, {@code critical}, ... */
  public String wireName() {
    return wireName;
  }

  /** 0 for the most important class, 3 for the least. */
  public int rank() {
    return ordinal();
  }

  /** Whether this class is served before {@code other}. */
  public boolean outranks(Criticality other) {
    return ordinal() < other.ordinal();
  }

  /**
   * The class named by {@code text}, case-insensitive, with {@code -} or {@code _} between the
   * words; {@code null} for {@code null} or anything else.
   */
  public static Criticality parse(CharSequence text) {
    if (text == null) {
      return null;
    }
    String t = text.toString().trim().toLowerCase(Locale.ROOT).replace('_', '-');
    for (Criticality c : ALL) {
      if (c.wireName.equals(t)) {
        return c;
      }
    }
    return null;
  }

  /** The accepted spellings, for error messages: {@code critical-plus, critical, sheddable-plus, sheddable}. */
  public static String choices() {
    StringBuilder b = new StringBuilder();
    for (Criticality c : ALL) {
      b.append(b.length() == 0 ? "" : ", ").append(c.wireName);
    }
    return b.toString();
  }
}
