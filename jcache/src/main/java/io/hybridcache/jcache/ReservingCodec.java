package io.hybridcache.jcache;

import io.hybridcache.core.api.Codec;
import java.nio.charset.StandardCharsets;

/**
 * A {@link Codec} that can write its bytes after a reserved head, so that the array it returns is the one stored
 * (the value with the provider's header in front, the key with its namespace prefix): a put then makes one copy of
 * the value, the codec's own ({@link ValueStore}), and the engine keeps that array ({@code HybridCache.putOwned});
 * a {@code String} of at most {@link #JDK_ENCODED_CHARS} chars takes two ({@link #utf8}).
 * The built-in codecs ({@link Codecs}) reserve; any other codec's bytes are copied once behind the head
 * ({@link #of}). Thread-safe, as every codec.
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

  /**
   * {@code codec} as a reserving codec, resolved once (a store keeps it: a call then makes no type test, which
   * measured about a tenth of a DRAM hit): itself if it reserves, the UTF-8 one for {@link Codec#utf8()}, else one
   * that copies the codec's bytes behind the head once.
   */
  @SuppressWarnings("unchecked")
  static <T> ReservingCodec<T> of(Codec<T> codec) {
    if (codec instanceof ReservingCodec<T> r) {
      return r;
    }
    if (codec == Codec.utf8()) {
      return (ReservingCodec<T>) Utf8.INSTANCE;
    }
    return new Copying<>(codec);
  }

  /** {@link Codec#utf8()}, written behind the head by {@link #utf8}. */
  enum Utf8 implements ReservingCodec<String> {
    INSTANCE;

    @Override
    public byte[] encode(String value, int reserved) {
      return utf8(value, reserved);
    }

    @Override
    public String decode(byte[] bytes) {
      return Codec.utf8().decode(bytes);
    }
  }

  /** Any other codec: its bytes copied behind the head once. */
  record Copying<T>(Codec<T> codec) implements ReservingCodec<T> {
    @Override
    public byte[] encode(T value, int reserved) {
      byte[] bytes = codec.encode(value);
      return behind(bytes, 0, bytes.length, reserved);
    }

    @Override
    public T decode(byte[] bytes) {
      return codec.decode(bytes);
    }
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
