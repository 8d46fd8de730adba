package dev.fairway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layout's rules, read from the sources: packages import each other in one direction only,
 * the pure policy packages use no Vert.x, and no source file outgrows its room.
 */
class ArchitectureTest {
  private static final Path MAIN = Path.of("src/main/java");
  private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
  private static final Pattern IMPORT = Pattern.compile("^import (?:static )?(dev\\.fairway[\\w.]*?)\\.[A-Z]",
      Pattern.MULTILINE);
  private static final Set<String> PURE = Set.of("dev.fairway.config", "dev.fairway.balancer", "dev.fairway.slots",
      "dev.fairway.health", "dev.fairway.table", "dev.fairway.route", "dev.fairway.grpc",
      "dev.fairway.overload", "dev.fairway.lease", "dev.fairway.discovery");

  private static final Map<String, Set<String>> DEPENDS = new TreeMap<>();
  private static final Map<Path, String> SOURCES = new HashMap<>();

  @BeforeAll
  static void read() throws IOException {
    try (Stream<Path> files = Files.walk(MAIN)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        String text = Files.readString(p);
        SOURCES.put(p, text);
        Matcher pkg = PACKAGE.matcher(text);
        assertThat(pkg.find()).as(p + " has a package").isTrue();
        Set<String> deps = DEPENDS.computeIfAbsent(pkg.group(1), k -> new TreeSet<>());
        Matcher imp = IMPORT.matcher(text);
        while (imp.find()) {
          if (!imp.group(1).equals(pkg.group(1))) {
            deps.add(imp.group(1));
          }
        }
      }
    }
  }

  @Test
  void noPackageReachesItselfThroughItsImports() {
    List<String> cycles = new ArrayList<>();
    for (String start : DEPENDS.keySet()) {
      List<String> path = cycleFrom(start, start, new ArrayList<>(List.of(start)), new TreeSet<>());
      if (path != null) {
        cycles.add(String.join(" -> ", path));
      }
    }
    assertThat(cycles).isEmpty();
  }

  private static List<String> cycleFrom(String start, String at, List<String> path, Set<String> seen) {
    for (String next : DEPENDS.getOrDefault(at, Set.of())) {
      if (next.equals(start)) {
        List<String> found = new ArrayList<>(path);
        found.add(start);
        return found;
      }
      if (seen.add(next)) {
        path.add(next);
        List<String> found = cycleFrom(start, next, path, seen);
        if (found != null) {
          return found;
        }
        path.remove(path.size() - 1);
      }
    }
    return null;
  }

  @Test
  void thePolicyPackagesUseNoVertx() {
    List<String> impure = SOURCES.entrySet().stream()
        .filter(e -> PURE.stream().anyMatch(pkg -> e.getValue().contains("package " + pkg + ";")))
        .filter(e -> e.getValue().contains("import io.vertx"))
        .map(e -> e.getKey().toString()).sorted().toList();
    assertThat(impure).isEmpty();
  }

  @Test
  void noSourceFileIsOverFourHundredAndTwentyLines() {
    List<String> large = SOURCES.entrySet().stream()
        .filter(e -> e.getValue().lines().count() > 420)
        .map(e -> e.getKey() + " " + e.getValue().lines().count()).sorted().toList();
    assertThat(large).isEmpty();
  }
}
