package dev.fairway.admin;

import dev.fairway.config.ConfigParser;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * Judges the admin token and listener address: a weak token is worth a start-up warning, and
 * on a listener reachable from other hosts it refuses every mutation.
 *
 * <p>Example: {@code weakness("change-me")} is "the shipped placeholder change-me",
 * {@code weakness("short")} is "shorter than 16 characters", {@code weakness("k2v9...24 chars")} is
 * empty; {@code isLoopback("127.0.0.1")} is true and {@code isLoopback("0.0.0.0")} false.
 */
final class AdminSecurity {
  /** Shortest token not warned about. */
  static final int MIN_TOKEN_LENGTH = 16;

  private AdminSecurity() {
  }

  /** Why {@code token} is weak, or empty if it is not. */
  static Optional<String> weakness(String token) {
    if (token == null || token.isBlank()) {
      return Optional.of("empty");
    }
    if (token.equals(ConfigParser.PLACEHOLDER_TOKEN)) {
      return Optional.of("the shipped placeholder " + ConfigParser.PLACEHOLDER_TOKEN);
    }
    if (token.length() < MIN_TOKEN_LENGTH) {
      return Optional.of("shorter than " + MIN_TOKEN_LENGTH + " characters");
    }
    return Optional.empty();
  }

  /** Whether {@code host} (a literal address or {@code localhost}) is a loopback address. */
  static boolean isLoopback(String host) {
    if (host.equalsIgnoreCase("localhost")) {
      return true;
    }
    if (!host.matches("[0-9a-fA-F:.\\[\\]]+")) {
      return false; // a name other than localhost: it may resolve anywhere
    }
    try {
      return InetAddress.getByName(host.replace("[", "").replace("]", "")).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
