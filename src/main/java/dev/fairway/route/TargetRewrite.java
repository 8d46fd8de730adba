package dev.fairway.route;

/**
 * The request target a backend gets when its service's match rewrites the path prefix.
 *
 * <p>Example: prefix {@code /api} with replacement {@code ""} ({@code stripPrefix}) turns
 * {@code /api/users?id=7} into {@code /users?id=7} and {@code /api} into {@code /}; with
 * replacement {@code /v2} it gives {@code /v2/users?id=7}; {@code http://shop/api/x} (absolute
 * form, path from index 11) becomes {@code http://shop/v2/x}.
 */
public final class TargetRewrite {
  private TargetRewrite() {
  }

  /**
   * @param target      the client's request target
   * @param pathStart   where its path starts (0 in origin form; its length for {@code http://shop})
   * @param prefix      the matched path prefix, which the path starts with
   * @param replacement what replaces it
   * @return the backend's target: always with a path starting with {@code /}
   */
  public static String apply(String target, int pathStart, String prefix, String replacement) {
    int restStart = pathStart + prefix.length();
    String rest = restStart <= target.length() ? target.substring(restStart) : "";
    String path = replacement.endsWith("/") && rest.startsWith("/") ? replacement + rest.substring(1) : replacement + rest;
    if (!path.startsWith("/")) {
      path = "/" + path;
    }
    return target.substring(0, pathStart) + path;
  }
}
