package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.device.FileModes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cache's directories are rwx------ and its files rw------- by default, or what
 * {@code filePermissions} says (exactly, whatever the umask), including files made before.
 */
class PermissionsTest {
  @TempDir Path tmp;

  @BeforeEach
  void posixOnly() {
    assumeTrue(FileModes.supported(tmp), "no POSIX permissions here");
  }

  private Path dir() {
    return tmp.resolve("cache");
  }

  /** Opens, writes through to flash, closes: every kind of file (CLEAN, seal, table, index, slots). */
  private static void fill(CacheConfig c) {
    try (Engine e = TestCaches.open(c)) {
      for (int i = 0; i < 300; i++) {
        e.put(key(i), value(i, 1, 500));
      }
      e.writeBackAndDropDram();
    }
  }

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  /** Every file under the cache directory with its mode, as "name mode" lines. */
  private List<String> fileModes() throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(dir())) {
      for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
        out.add(dir().relativize(p) + " " + mode(p));
      }
    }
    return out;
  }

  private void assertModes(String dirMode, String fileMode, Set<String> mustExist) throws IOException {
    assertEquals(dirMode, mode(dir()));
    assertEquals(dirMode, mode(dir().resolve("segments")));
    List<String> files = fileModes();
    for (String f : files) {
      assertTrue(f.endsWith(" " + fileMode), f + " in " + files);
    }
    for (String name : mustExist) {
      assertTrue(files.stream().anyMatch(f -> f.startsWith(name + " ")), name + " missing from " + files);
    }
  }

  @Test
  void byDefaultOnlyTheOwnerGetsIn() throws IOException {
    byDefaultOnlyTheOwnerGetsIn(IndexType.HEAP);
  }

  @Test
  @NeedsChronicle
  void byDefaultOnlyTheOwnerGetsInOnChronicle() throws IOException {
    byDefaultOnlyTheOwnerGetsIn(IndexType.CHRONICLE);
  }

  private void byDefaultOnlyTheOwnerGetsIn(IndexType index) throws IOException {
    fill(TestCaches.small(dir(), index).build());
    String indexFile = index == IndexType.HEAP ? "index.ckpt" : "index.cm";
    assertModes("rwx------", "rw-------", Set.of("LOCK", "layout.properties", "segments.meta", "CLEAN", indexFile,
        Path.of("segments", "slot-00000.seg").toString()));
  }

  @Test
  @NeedsChronicle
  void theOptionIsAppliedExactlyToFilesDirectoriesAndTheTrace() throws IOException {
    Path trace = tmp.resolve("traces").resolve("trace.csv");
    fill(TestCaches.small(dir(), IndexType.CHRONICLE).filePermissions("rw-rw----").writeTrace(trace).build());
    // g+w survives a umask of 022: the modes are set, not only asked for at creation
    assertModes("rwxrwx---", "rw-rw----", Set.of("LOCK", "index.cm", "index.cm.seal"));
    assertEquals("rw-rw----", mode(trace));
  }

  @Test
  void filesMadeBeforeGetTheConfiguredModeAtOpen() throws IOException {
    fill(TestCaches.small(dir(), IndexType.HEAP).filePermissions("rw-r--r--").build());
    assertModes("rwxr-xr-x", "rw-r--r--", Set.of("segments.meta"));
    try (Engine e = TestCaches.open(TestCaches.small(dir(), IndexType.HEAP).build())) {
      assertEquals("rwx------", mode(dir()));
      assertEquals("rw-------", mode(dir().resolve("segments").resolve("slot-00000.seg")));
      assertEquals("rw-------", mode(dir().resolve("LOCK")));
    }
    assertModes("rwx------", "rw-------", Set.of("CLEAN", "index.ckpt", "index.journal"));
  }

  @Test
  void theParentsOfANewCacheDirectoryAreLeftAlone() throws IOException {
    Path parent = Files.createDirectory(tmp.resolve("parent"));
    Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxr-xr-x"));
    fill(TestCaches.small(parent.resolve("cache"), IndexType.HEAP).build());
    assertEquals("rwxr-xr-x", mode(parent));
    assertEquals("rwx------", mode(parent.resolve("cache")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"rwx------", "r--------", "-w-------", "rw-", "rw-------x", "rw-r--r-x", "644", ""})
  void badPermissionStringsAreRejectedNamingTheValue(String bad) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TestCaches.small(dir(), IndexType.HEAP).filePermissions(bad).build());
    assertTrue(e.getMessage().contains("filePermissions") && e.getMessage().contains("was " + bad), e.getMessage());
  }

  /**
   * A directory others could write is not trusted: they could have planted a file the cache reads back
   * (issue 35 item 4). The message names the directory and its mode, and nothing in it is changed.
   */
  @ParameterizedTest
  @ValueSource(strings = {"rwxrwxrwx", "rwxrwx---", "rwx---rwx"})
  void aDirectoryOthersCanWriteIsRefusedNamingItsMode(String mode) throws IOException {
    Files.createDirectory(dir());
    Files.setPosixFilePermissions(dir(), PosixFilePermissions.fromString(mode));
    java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class,
        () -> TestCaches.open(TestCaches.small(dir(), IndexType.HEAP).build()));
    assertTrue(e.getMessage().contains(dir().toString()) && e.getMessage().contains(mode), e.getMessage());
    assertEquals(mode, mode(dir()), "the refused directory was changed");
    assertEquals(List.of(), fileModes(), "the refused directory got files");
  }

  /** Unless the configured permissions give that write themselves (a group-shared cache). */
  @Test
  void aGroupWritableDirectoryIsTrustedWhenTheConfigurationAsksForGroupWrite() throws IOException {
    Files.createDirectory(dir());
    Files.setPosixFilePermissions(dir(), PosixFilePermissions.fromString("rwxrwx---"));
    fill(TestCaches.small(dir(), IndexType.HEAP).filePermissions("rw-rw----").build());
    assertEquals("rwxrwx---", mode(dir()));
  }

  /** A directory of another user is refused, naming its owner (run as root: the test makes one). */
  @Test
  void aDirectoryOfAnotherUserIsRefusedNamingItsOwner() throws IOException {
    Files.createDirectory(dir());
    java.nio.file.attribute.UserPrincipal nobody;
    try {
      nobody = dir().getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
      Files.setOwner(dir(), nobody);
    } catch (IOException | UnsupportedOperationException e) {
      assumeTrue(false, "cannot give a directory to another user here (not root): " + e);
      return;
    }
    java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class,
        () -> TestCaches.open(TestCaches.small(dir(), IndexType.HEAP).build()));
    assertTrue(e.getMessage().contains(dir().toString()) && e.getMessage().contains("nobody"), e.getMessage());
  }
}
