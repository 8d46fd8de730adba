package dev.fairway.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bytes of a few files at one moment: to tell whether any of them changed since an earlier
 * snapshot (by content, not by modification time), and to build from exactly the bytes compared.
 *
 * <p>Example: {@code first = FileSnapshot.take(List.of("a.pem", "a.key"), FileSnapshot.DISK)};
 * after {@code a.pem} is replaced by a renewed certificate, {@code FileSnapshot.take(...)
 * .changedFrom(first)} is {@code ["a.pem"]}; after a mere {@code touch a.pem} it is empty. A file
 * that cannot be read is a state of its own: {@code bytes("a.pem")} then throws
 * {@code IOException("a.pem: no such file")}, and it counts as changed only when its reason does.
 */
public final class FileSnapshot {
  /** Reads a whole file; tests inject their own. */
  @FunctionalInterface
  public interface Reader {
    byte[] read(Path file) throws IOException;
  }

  /** Reads from the file system. */
  public static final Reader DISK = Files::readAllBytes;

  /** Each file's bytes, or for an unreadable file the reason, in the order taken. */
  private final Map<String, byte[]> contents;
  private final Map<String, String> unreadable;

  private FileSnapshot(Map<String, byte[]> contents, Map<String, String> unreadable) {
    this.contents = Collections.unmodifiableMap(contents);
    this.unreadable = Collections.unmodifiableMap(unreadable);
  }

  /** Reads every file of {@code paths} now with {@code reader}. */
  public static FileSnapshot take(List<String> paths, Reader reader) {
    Map<String, byte[]> contents = new LinkedHashMap<>();
    Map<String, String> unreadable = new LinkedHashMap<>();
    for (String p : paths) {
      if (contents.containsKey(p) || unreadable.containsKey(p)) {
        continue;
      }
      try {
        contents.put(p, reader.read(Path.of(p)));
      } catch (NoSuchFileException e) {
        unreadable.put(p, "no such file");
      } catch (IOException | RuntimeException e) {
        unreadable.put(p, e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
      }
    }
    return new FileSnapshot(contents, unreadable);
  }

  /** The files of this snapshot, in the order taken. */
  public List<String> paths() {
    List<String> out = new ArrayList<>(contents.keySet());
    out.addAll(unreadable.keySet());
    return out;
  }

  /**
   * The bytes {@code path} had (a copy).
   *
   * @throws IOException naming the file and why it could not be read, or that it is not part of this snapshot
   */
  public byte[] bytes(String path) throws IOException {
    byte[] b = contents.get(path);
    if (b != null) {
      return b.clone();
    }
    throw new IOException(path + ": " + unreadable.getOrDefault(path, "not watched"));
  }

  /** The files whose content (or reason for being unreadable) differs from {@code earlier}'s, or that it lacks. */
  public List<String> changedFrom(FileSnapshot earlier) {
    List<String> out = new ArrayList<>();
    for (String p : paths()) {
      boolean same = contents.containsKey(p)
          ? earlier.contents.containsKey(p) && Arrays.equals(contents.get(p), earlier.contents.get(p))
          : unreadable.get(p).equals(earlier.unreadable.get(p));
      if (!same) {
        out.add(p);
      }
    }
    for (String p : earlier.paths()) {
      if (!contents.containsKey(p) && !unreadable.containsKey(p)) {
        out.add(p);
      }
    }
    return out;
  }
}
