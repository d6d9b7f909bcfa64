package io.hybridcache.bench.jcache;

import java.io.Serializable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.event.EventType;

/** A synchronous listener that records the types of the events it hears, in order. Thread-safe. */
final class ProbeListener implements CacheEntryCreatedListener<String, String>,
    CacheEntryUpdatedListener<String, String>, CacheEntryRemovedListener<String, String>, Serializable {
  private static final long serialVersionUID = 1L;

  private final transient List<EventType> heard = new CopyOnWriteArrayList<>();

  List<EventType> heard() {
    return heard;
  }

  private void hear(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
    for (CacheEntryEvent<? extends String, ? extends String> e : events) {
      heard.add(e.getEventType());
    }
  }

  @Override
  public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
    hear(events);
  }

  @Override
  public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
    hear(events);
  }

  @Override
  public void onRemoved(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
    hear(events);
  }
}
