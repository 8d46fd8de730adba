package dev.fairway.config;

import java.util.List;

/**
 * A configuration that failed validation, with one line per problem.
 *
 * <p>Example: {@code problems()} may read
 * {@code ["services[0].backends[1].capacity: -1 is invalid; expected an integer >= 1"]}.
 */
public final class ConfigException extends Exception {
  private final List<String> problems;

  public ConfigException(List<String> problems) {
    super(String.join("\n", problems), null, false, false);
    this.problems = List.copyOf(problems);
  }

  /** One human-readable line per problem, each naming the JSON path, the value and the rule. */
  public List<String> problems() {
    return problems;
  }
}
