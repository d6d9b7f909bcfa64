package io.hybridcache.core.device;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The few glibc calls {@link FileDevice} needs that Java does not offer (posix_fallocate, fallocate
 * punch hole, fcntl write-life hints), bound with JNA direct mapping. Thread-safe: stateless; errno is
 * per thread and JNA saves it right after each call, so {@link #lastError()} must be read on the
 * calling thread before any other native call.
 *
 * <p>Linux only: the constants are the x86-64 / aarch64 values. On other platforms, or when the
 * binding fails, {@link #available()} is false and callers take their fallbacks; calling a native
 * method then throws {@link UnsatisfiedLinkError}.
 *
 * <p>Errors: the raw calls return -1 and leave errno ({@code open}, {@code close}, {@code fallocate},
 * {@code fcntl}) or return the error number ({@code posix_fallocate}); {@link #describe} turns one into
 * the strerror text ("No space left on device (errno 28)") for IOException messages.
 */
final class LibC {
  private static final Logger LOG = LoggerFactory.getLogger(LibC.class);

  static final int O_RDONLY = 0;
  static final int O_RDWR = 2;
  static final int O_CREAT = 0100;
  static final int O_CLOEXEC = 02000000;

  static final int FALLOC_FL_KEEP_SIZE = 0x01;
  static final int FALLOC_FL_PUNCH_HOLE = 0x02;

  /** fcntl commands for inode write-life hints (linux/fcntl.h: F_LINUX_SPECIFIC_BASE 1024 + 11, + 12). */
  static final int F_GET_RW_HINT = 1035;
  static final int F_SET_RW_HINT = 1036;

  static final int EINTR = 4;
  static final int ENOENT = 2;
  static final int EINVAL = 22;
  static final int ENOSPC = 28;
  static final int ENOSYS = 38;
  static final int EOPNOTSUPP = 95;

  private static final boolean AVAILABLE = bind();

  private LibC() {}

  private static boolean bind() {
    if (!Platform.isLinux()) {
      return false;
    }
    try {
      Native.register(LibC.class, NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
      return true;
    } catch (Throwable e) { // UnsatisfiedLinkError, NoClassDefFoundError, LinkageError
      LOG.info("libc binding unavailable, device falls back to pure Java: {}", e.toString());
      return false;
    }
  }

  /** True when the native methods below are bound. */
  static boolean available() {
    return AVAILABLE;
  }

  static native int open(String path, int flags, int mode);

  static native int close(int fd);

  /** Returns 0 or an error number (errno is not set). */
  static native int posix_fallocate(int fd, long offset, long len);

  /** Returns 0, or -1 with errno. */
  static native int fallocate(int fd, int mode, long offset, long len);

  /** The pointer form of fcntl (the write-life hint commands take a {@code uint64_t *}). */
  static native int fcntl(int fd, int cmd, Pointer arg);

  static native String strerror(int errnum);

  /** The errno of the last native call on this thread. */
  static int lastError() {
    return Native.getLastError();
  }

  /** "No space left on device (errno 28)". */
  static String describe(int errno) {
    String text = null;
    try {
      text = strerror(errno);
    } catch (Throwable ignored) {
      // fall through to the number alone
    }
    if (text == null) {
      text = new LastErrorException(errno).getMessage();
    }
    return text + " (errno " + errno + ")";
  }

  /** Opens {@code path} with {@link #open}, close-on-exec; throws with the strerror text on failure. */
  static int openOrThrow(Path path, int flags, int mode) throws IOException {
    int fd;
    do {
      fd = open(path.toString(), flags | O_CLOEXEC, mode);
    } while (fd < 0 && lastError() == EINTR);
    if (fd < 0) {
      int errno = lastError();
      String what = "open(" + path + "): " + describe(errno);
      throw errno == ENOENT ? new java.nio.file.NoSuchFileException(path.toString(), null, what)
          : new IOException(what);
    }
    return fd;
  }

  /**
   * Reserves bytes [0, {@code length}) of the file at {@code path} (opening it with {@code flags}) with
   * posix_fallocate, retrying on EINTR. Returns 0 or the error number.
   */
  static int fallocateFile(Path path, int flags, int mode, long length) throws IOException {
    int fd = openOrThrow(path, flags, mode);
    int rc;
    try {
      do {
        rc = posix_fallocate(fd, 0, length);
      } while (rc == EINTR);
    } finally {
      closeQuietly(fd);
    }
    return rc;
  }

  /** Closes quietly; a failed close of a descriptor used only for metadata calls loses nothing. */
  static void closeQuietly(int fd) {
    if (fd >= 0) {
      close(fd);
    }
  }

  /** The write-life hint of the inode at {@code path} (F_GET_RW_HINT). */
  static long getWriteLifeHint(Path path) throws IOException {
    if (!AVAILABLE) {
      throw new IOException("F_GET_RW_HINT unavailable: no libc binding");
    }
    int fd = openOrThrow(path, O_RDONLY, 0);
    try {
      LongByReference hint = new LongByReference();
      if (fcntl(fd, F_GET_RW_HINT, hint.getPointer()) != 0) {
        throw new IOException("fcntl(" + path + ", F_GET_RW_HINT): " + describe(lastError()));
      }
      return hint.getValue();
    } finally {
      closeQuietly(fd);
    }
  }

  /** Sets the write-life hint of the inode at {@code path} (F_SET_RW_HINT); returns 0 or an errno. */
  static int setWriteLifeHint(Path path, long hint) throws IOException {
    int fd = openOrThrow(path, O_RDONLY, 0);
    try {
      LongByReference arg = new LongByReference(hint);
      return fcntl(fd, F_SET_RW_HINT, arg.getPointer()) == 0 ? 0 : lastError();
    } finally {
      closeQuietly(fd);
    }
  }
}
