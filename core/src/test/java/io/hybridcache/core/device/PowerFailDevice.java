package io.hybridcache.core.device;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * TEST-ONLY: a {@link Device} over a {@link FileDevice} that models what an OS crash or power loss can
 * undo. Before a write it keeps the before-image of every 4 KiB page the write covers (the first write of
 * each page since the last {@link #sync()}; an unallocated slot's pages are zeros); a successful {@link
 * #sync()} forgets them (they are durable now). {@link #powerFail()} writes them back over the files (after
 * the device was closed, as a crash after a close would find them): every write not synced since is lost.
 * {@link #settled()} forgets them as the kernel's own write-back would, given time.
 *
 * <p>The images are kept per directory in a {@link Images} the test shares between the devices of
 * successive opens. Thread-safe: concurrent writes of different pages are independent; the engine never
 * writes one page from two threads at once.
 */
public final class PowerFailDevice extends ForwardingDevice {
  private final Images images;

  /** The pages written since the last sync of one directory's device, across opens. */
  public static final class Images {
    private final Map<Long, byte[]> before = new ConcurrentHashMap<>();
    private volatile Path directory;
    private volatile int slots;
    private volatile long slotBytes;

    /** Pages whose before-image is kept (written since the last sync). */
    public int unsynced() {
      return before.size();
    }

    /** The kernel wrote its page cache back meanwhile: nothing written so far can be lost any more. */
    public void settled() {
      before.clear();
    }

    /** Writes every before-image back (the device must be closed): unsynced writes are lost. */
    public void powerFail() throws IOException {
      try (Device d = FileDevice.open(directory, slots, slotBytes, false)) {
        ByteBuffer page = Device.allocateAligned(Device.ALIGNMENT);
        for (Map.Entry<Long, byte[]> e : before.entrySet()) {
          page.clear();
          page.put(e.getValue()).flip();
          d.write((int) (e.getKey() / pagesPerSlot()), e.getKey() % pagesPerSlot() * Device.ALIGNMENT, page);
        }
        d.sync();
      }
      before.clear();
    }

    private long pagesPerSlot() {
      return slotBytes / Device.ALIGNMENT;
    }
  }

  public PowerFailDevice(Device delegate, Path directory, Images images) {
    super(delegate);
    this.images = images;
    images.directory = directory;
    images.slots = delegate.slotCount();
    images.slotBytes = delegate.slotBytes();
  }

  @Override
  public void write(int slot, long offset, ByteBuffer src) throws IOException {
    ByteBuffer old = Device.allocateAligned(Device.ALIGNMENT);
    for (long at = offset; at < offset + src.remaining(); at += Device.ALIGNMENT) {
      long page = slot * images.pagesPerSlot() + at / Device.ALIGNMENT;
      if (!images.before.containsKey(page)) {
        byte[] image = new byte[Device.ALIGNMENT];
        if (delegate.allocated(slot)) {
          delegate.read(slot, at, old.clear());
          old.flip().get(image);
        }
        images.before.putIfAbsent(page, image);
      }
    }
    delegate.write(slot, offset, src);
  }

  @Override
  public void sync() throws IOException {
    delegate.sync();
    images.settled();
  }
}
