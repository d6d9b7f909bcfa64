package io.hybridcache.jcache;

import io.hybridcache.core.api.Codec;
import java.nio.charset.StandardCharsets;

/**
 * A {@link Codec} that can write its bytes after a reserved head, so that the array it returns is the one stored
 * (the value with the provider's header in front, the key with its namespace prefix): a put then makes one copy of
 * the value, the codec's own ({@link ValueStore}), and the engine keeps that array ({@code HybridCache.putOwned});
 * a {@code String} of at most {@link #JDK_ENCODED_CHARS} chars takes two ({@link #utf8}).
 * The built-in codecs ({@link Codecs}) reserve; any other codec's bytes are copied once behind the head
 * ({@link #encode(Codec, Object, int)}). Thread-safe, as every codec.
 */
interface ReservingCodec<T> extends Codec<T> {
  /** The longest string {@link #utf8} has the JDK encode before copying it behind the head. */
  int JDK_ENCODED_CHARS = 1024;

  /** {@code reserved} zero bytes, for the caller to fill, then what {@link #encode(Object)} gives. */
  byte[] encode(T value, int reserved);

  @Override
  default byte[] encode(T value) {
    return encode(value, 0);
  }

  /** {@code value} by {@code codec} after {@code reserved} zero bytes: written there, or copied there once. */
  static <T> byte[] encode(Codec<T> codec, T value, int reserved) {
    if (codec instanceof ReservingCodec<T> r) {
      return r.encode(value, reserved);
    }
    if (codec == Codec.utf8()) {
      return utf8((String) value, reserved);
    }
    byte[] bytes = codec.encode(value);
    return behind(bytes, 0, bytes.length, reserved);
  }

  /** {@code length} bytes of {@code bytes} from {@code offset}, copied after {@code reserved} zero bytes. */
  static byte[] behind(byte[] bytes, int offset, int length, int reserved) {
    byte[] out = new byte[reserved + length];
    System.arraycopy(bytes, offset, out, reserved, length);
    return out;
  }

  /**
   * {@code s} as UTF-8 (the bytes of {@code s.getBytes(UTF_8)}) after {@code reserved} zero bytes. Up to
   * {@link #JDK_ENCODED_CHARS} chars the JDK encodes it (a vectorised copy for an ASCII string) and its bytes are
   * copied behind the head: two copies, but faster than one written char by char (a 100-char put measured 228-236
   * against 243-252 ns, three A B alternations). A longer ASCII string is written straight into the result (one copy: the
   * allocation is what counts there); any other is encoded by the JDK and copied behind the head, after the
   * ASCII part already written is dropped (about 5x its size allocated for a 64 Ki-char string with one non-ASCII
   * char at its end; the same before the JDK path was added).
   */
  static byte[] utf8(String s, int reserved) {
    int n = s.length();
    if (n <= JDK_ENCODED_CHARS) {
      byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
      return behind(bytes, 0, bytes.length, reserved);
    }
    byte[] out = new byte[reserved + n];
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        return behind(bytes, 0, bytes.length, reserved);
      }
      out[reserved + i] = (byte) c;
    }
    return out;
  }
}
