package io.hybridcache.jcache;

/**
 * Spring's {@code org.springframework.cache.support.NullValue}: what Spring's {@code JCacheCache} puts for a
 * {@code null} result when the cache allows nulls (Spring's default), a serializable singleton that is not of
 * the cache's value type. The provider takes it into any cache whatever its declared value type, stores it
 * as a flag with no payload (whatever the value codec and the {@code serial-filter}), and reads it back as
 * the singleton of the cache's class loader. Spring need not be on the provider's class path: the class is
 * known by name. Stateless.
 */
final class NullValues {
  static final String CLASS_NAME = "org.springframework.cache.support.NullValue";
  /** The singleton of each {@code NullValue} class seen (a {@code ClassValue}: never pins its class loader). */
  private static final ClassValue<Object> INSTANCES = new ClassValue<>() {
    @Override
    protected Object computeValue(Class<?> type) {
      try {
        return type.getField("INSTANCE").get(null);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("no " + CLASS_NAME + ".INSTANCE", e);
      }
    }
  };

  private NullValues() {}

  /** Whether {@code value} is Spring's null marker. */
  static boolean is(Object value) {
    return value != null && value.getClass().getName().equals(CLASS_NAME);
  }

  /** The singleton of {@code loader}'s {@code NullValue}; throws if that loader has no Spring. */
  static Object instance(ClassLoader loader) {
    Class<?> c;
    try {
      c = ContextFirstClassLoader.forName(CLASS_NAME, true, loader);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("a stored null value (" + CLASS_NAME + ") but no such class", e);
    }
    return INSTANCES.get(c);
  }
}
