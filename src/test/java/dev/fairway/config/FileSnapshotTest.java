package dev.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Content comparison of {@link FileSnapshot} and the keep-the-last-good rule of {@link FileBacked}, with an in-memory reader. */
class FileSnapshotTest {
  /** The "file system": path to text; a missing path is no such file, "DENIED" is access denied. */
  private final Map<String, String> files = new HashMap<>();
  private int reads;

  private byte[] read(java.nio.file.Path p) throws IOException {
    reads++;
    String text = files.get(p.toString());
    if (text == null) {
      throw new NoSuchFileException(p.toString());
    }
    if (text.equals("DENIED")) {
      throw new AccessDeniedException(p.toString());
    }
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private FileSnapshot take(String... paths) {
    return FileSnapshot.take(List.of(paths), this::read);
  }

  @Test
  void onlyFilesWhoseBytesChangedAreReported() throws IOException {
    files.put("a.pem", "cert 1");
    files.put("a.key", "key 1");
    FileSnapshot first = take("a.pem", "a.key");

    files.put("a.pem", "cert 1"); // rewritten with the same bytes: a touch
    assertThat(take("a.pem", "a.key").changedFrom(first)).isEmpty();

    files.put("a.pem", "cert 2");
    FileSnapshot second = take("a.pem", "a.key");
    assertThat(second.changedFrom(first)).containsExactly("a.pem");
    assertThat(new String(second.bytes("a.pem"), StandardCharsets.US_ASCII)).isEqualTo("cert 2");
  }

  @Test
  void anUnreadableFileIsAStateThatChangesOnlyWithItsReason() {
    files.put("a.pem", "cert 1");
    FileSnapshot good = take("a.pem");
    files.remove("a.pem");
    FileSnapshot gone = take("a.pem");

    assertThat(gone.changedFrom(good)).containsExactly("a.pem");
    assertThat(take("a.pem").changedFrom(gone)).isEmpty();
    assertThatThrownBy(() -> gone.bytes("a.pem")).isInstanceOf(IOException.class).hasMessage("a.pem: no such file");
    files.put("a.pem", "DENIED");
    assertThat(take("a.pem").changedFrom(gone)).containsExactly("a.pem");
    assertThat(take("a.pem", "b.pem").changedFrom(gone)).containsExactly("a.pem", "b.pem");
    assertThat(take().changedFrom(gone)).containsExactly("a.pem");
  }

  @Test
  void aFailedBuildKeepsTheLastGoodValueAndIsReportedOncePerContent() {
    files.put("a.pem", "good 1");
    FileBacked<String> value = FileBacked.load(List.of("a.pem"), this::read, this::build);
    assertThat(value.current()).contains("good 1");
    assertThat(value.scan()).isEqualTo(new FileBacked.Unchanged<String>());

    files.put("a.pem", "garbage");
    assertThat(value.scan()).isEqualTo(new FileBacked.Rejected<String>(List.of("a.pem"), "a.pem: not good"));
    assertThat(value.scan()).isEqualTo(new FileBacked.Unchanged<String>());
    assertThat(value.scan()).isEqualTo(new FileBacked.Unchanged<String>());
    assertThat(value.current()).contains("good 1");

    files.put("a.pem", "good 2");
    assertThat(value.scan()).isEqualTo(new FileBacked.Reloaded<>("good 2", List.of("a.pem")));
    assertThat(value.current()).contains("good 2");
    assertThat(value.failure()).isEmpty();
  }

  @Test
  void aFirstBuildThatFailsIsKeptUntilTheFilesChange() {
    FileBacked<String> value = FileBacked.load(List.of("a.pem"), this::read, this::build);
    assertThat(value.current()).isEmpty();
    assertThat(value.failure()).contains("a.pem: no such file");
    int before = reads;
    assertThat(value.scan()).isInstanceOf(FileBacked.Unchanged.class);
    assertThat(reads - before).as("a scan reads each file once").isEqualTo(1);

    files.put("a.pem", "good 1");
    assertThat(value.scan()).isInstanceOf(FileBacked.Reloaded.class);
    assertThat(value.current()).contains("good 1");
  }

  private String build(FileSnapshot s) throws IOException {
    String text = new String(s.bytes("a.pem"), StandardCharsets.US_ASCII);
    if (!text.startsWith("good")) {
      throw new IOException("a.pem: not good");
    }
    return text;
  }
}
