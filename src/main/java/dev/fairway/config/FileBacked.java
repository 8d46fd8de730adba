package dev.fairway.config;

import java.util.List;
import java.util.Optional;

/**
 * A value built from a few files (a TLS context from its PEM files), rebuilt when their contents
 * change; a build that fails keeps the last good value. Thread-safe: {@link #current} is a
 * volatile read, {@link #scan} runs one at a time (off the event loops: it reads the files).
 *
 * <p>Example: {@code FileBacked.load(List.of("a.pem", "a.key"), DISK, files -> context(files))}
 * builds the context now. After {@code a.pem} is renewed, {@code scan()} returns
 * {@code Reloaded(newContext, ["a.pem"])} and {@code current()} is the new context; after it is
 * overwritten with garbage, {@code scan()} returns {@code Rejected(["a.pem"], "a.pem: ...")} once,
 * then {@code Unchanged} on every scan until the file changes again, and {@code current()} stays
 * the last good context. If the very first build fails, {@code current()} is empty and
 * {@link #failure()} says why, until a later scan builds it.
 *
 * @param <T> what is built
 */
public final class FileBacked<T> {
  /** Builds the value from a snapshot of the files; the exception's message names the bad file and why. */
  @FunctionalInterface
  public interface Build<T> {
    T build(FileSnapshot files) throws Exception;
  }

  /** What a {@link #scan} found. */
  public sealed interface Scan<T> {
  }

  /** No file changed since the last scan (or since the last failed build). */
  public record Unchanged<T>() implements Scan<T> {
  }

  /** Files changed and the new value was built and is now {@link #current}. */
  public record Reloaded<T>(T value, List<String> changed) implements Scan<T> {
  }

  /** Files changed but no value could be built from them: the previous one stays. */
  public record Rejected<T>(List<String> changed, String reason) implements Scan<T> {
  }

  /** The last good value, or the reason there is none yet. */
  private record State<T>(T value, String failure) {
  }

  private final List<String> paths;
  private final FileSnapshot.Reader reader;
  private final Build<T> build;
  private volatile State<T> state;
  private FileSnapshot seen;

  private FileBacked(List<String> paths, FileSnapshot.Reader reader, Build<T> build) {
    this.paths = List.copyOf(paths);
    this.reader = reader;
    this.build = build;
  }

  /** Reads the files and builds the value now; a failure is kept ({@link #failure}) until the files change. */
  public static <T> FileBacked<T> load(List<String> paths, FileSnapshot.Reader reader, Build<T> build) {
    FileBacked<T> f = new FileBacked<>(paths, reader, build);
    synchronized (f) {
      f.seen = FileSnapshot.take(f.paths, reader);
      try {
        f.state = new State<>(build.build(f.seen), null);
      } catch (Exception e) {
        f.state = new State<>(null, reason(e));
      }
    }
    return f;
  }

  /** The files watched. */
  public List<String> paths() {
    return paths;
  }

  /** The last value built, empty if none could be built yet. */
  public Optional<T> current() {
    return Optional.ofNullable(state.value());
  }

  /** Why no value could be built, while {@link #current} is empty. */
  public Optional<String> failure() {
    return Optional.ofNullable(state.failure());
  }

  /** Reads the files again and rebuilds the value if any changed since the last scan. */
  public synchronized Scan<T> scan() {
    FileSnapshot now = FileSnapshot.take(paths, reader);
    List<String> changed = now.changedFrom(seen);
    if (changed.isEmpty()) {
      return new Unchanged<>();
    }
    seen = now;
    try {
      T value = build.build(now);
      state = new State<>(value, null);
      return new Reloaded<>(value, changed);
    } catch (Exception e) {
      String why = reason(e);
      if (state.value() == null) {
        state = new State<>(null, why);
      }
      return new Rejected<>(changed, why);
    }
  }

  private static String reason(Exception e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
