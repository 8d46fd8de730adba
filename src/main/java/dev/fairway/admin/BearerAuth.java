package dev.fairway.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Checks an {@code Authorization: Bearer <token>} header in constant time.
 *
 * <p>Example: with token {@code s3cret-token-0123}, {@code allows("Bearer s3cret-token-0123")} is
 * true and {@code allows("Bearer s3cret")}, {@code allows(null)} are false, taking the same time
 * whatever prefix of the token they share.
 */
final class BearerAuth {
  private static final String PREFIX = "Bearer ";
  private final byte[] token;

  BearerAuth(String token) {
    this.token = token.getBytes(StandardCharsets.UTF_8);
  }

  boolean allows(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      return false;
    }
    byte[] given = authorization.substring(PREFIX.length()).trim().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(given, token);
  }
}
