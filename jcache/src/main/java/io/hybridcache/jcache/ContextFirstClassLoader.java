package io.hybridcache.jcache;

import java.io.IOException;
import java.net.URL;
import java.util.Enumeration;

/**
 * The provider's default class loader: each lookup tries the calling thread's context class loader first
 * (the application's, in a container or a Spring Boot jar), then the provider's own. One per provider, so a
 * manager asked for without a class loader is one manager whatever the thread. Holds no loader itself.
 *
 * <p>Design note: never pass this loader to {@code Class.forName}. The JVM records the loader given to
 * {@code forName} as an initiating loader of the class it returned and answers later calls from that record
 * without asking the loader again: after context loader A resolved {@code p.Order}, a thread of context loader
 * B (a redeployed application) would get A's class for ever (a stale class, "p.Order cannot be cast to
 * p.Order", and A pinned by the provider). The provider resolves a name with {@link #forName}, which asks the
 * current thread's context loader, then the provider's own, on every call.
 */
final class ContextFirstClassLoader extends ClassLoader {
  static {
    registerAsParallelCapable();
  }

  ContextFirstClassLoader(ClassLoader own) {
    super("hybridcache-jcache-default", own);
  }

  /**
   * Class {@code name} (arrays too) of {@code loader}, not initialized: through the current thread's context
   * loader, then the provider's own, if {@code loader} is a {@code ContextFirstClassLoader}.
   */
  static Class<?> forName(String name, boolean initialize, ClassLoader loader) throws ClassNotFoundException {
    if (loader instanceof ContextFirstClassLoader first) {
      return first.resolve(name, initialize);
    }
    return Class.forName(name, initialize, loader);
  }

  private Class<?> resolve(String name, boolean initialize) throws ClassNotFoundException {
    ClassLoader c = context();
    if (c != null) {
      try {
        return Class.forName(name, initialize, c);
      } catch (ClassNotFoundException e) {
        // not the application's: the provider's own
      }
    }
    return Class.forName(name, initialize, getParent());
  }

  private ClassLoader context() {
    ClassLoader c = Thread.currentThread().getContextClassLoader();
    return c == this ? null : c;
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    Class<?> c = resolve(name, false); // it defines no class of its own: nothing to find among its loaded ones
    if (resolve) {
      resolveClass(c);
    }
    return c;
  }

  @Override
  public URL getResource(String name) {
    ClassLoader c = context();
    URL u = c == null ? null : c.getResource(name);
    return u != null ? u : super.getResource(name);
  }

  @Override
  public Enumeration<URL> getResources(String name) throws IOException {
    ClassLoader c = context();
    return c != null ? c.getResources(name) : super.getResources(name);
  }
}
