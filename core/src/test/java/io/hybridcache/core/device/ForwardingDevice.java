package io.hybridcache.core.device;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * TEST-ONLY: a {@link Device} that passes every call to another; fault and crash models override the
 * calls they change. Thread-safe as its delegate.
 */
public abstract class ForwardingDevice implements Device {
  protected final Device delegate;

  protected ForwardingDevice(Device delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public int slotCount() {
    return delegate.slotCount();
  }

  @Override
  public long slotBytes() {
    return delegate.slotBytes();
  }

  @Override
  public boolean directIo() {
    return delegate.directIo();
  }

  @Override
  public void write(int slot, long offset, ByteBuffer src) throws IOException {
    delegate.write(slot, offset, src);
  }

  @Override
  public void read(int slot, long offset, ByteBuffer dst) throws IOException {
    delegate.read(slot, offset, dst);
  }

  @Override
  public void discard(int slot) throws IOException {
    delegate.discard(slot);
  }

  @Override
  public boolean allocated(int slot) {
    return delegate.allocated(slot);
  }

  @Override
  public boolean setWriteLifeHint(int slot, int hint) {
    return delegate.setWriteLifeHint(slot, hint);
  }

  /** The delegate's counters: calls that failed before reaching it are not in them. */
  @Override
  public DeviceCounters counters() {
    return delegate.counters();
  }

  @Override
  public void sync() throws IOException {
    delegate.sync();
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }
}
