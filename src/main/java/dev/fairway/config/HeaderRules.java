package dev.fairway.config;

/**
 * A service's {@code requestHeaders} and {@code responseHeaders}.
 *
 * <p>Example: {@code "requestHeaders": {"set": {"X-Env": "prod"}}} gives {@code request} that edit
 * and {@code response} {@link HeaderEdit#NONE}.
 *
 * @param request  applied to each request before it is forwarded to a backend
 * @param response applied to each backend response before it is returned to the client
 */
public record HeaderRules(HeaderEdit request, HeaderEdit response) {
  /** No header rules. */
  public static final HeaderRules NONE = new HeaderRules(HeaderEdit.NONE, HeaderEdit.NONE);

  /** Whether neither direction changes anything. */
  public boolean isEmpty() {
    return request.isEmpty() && response.isEmpty();
  }
}
