package io.hybridcache.jcache;

import java.io.IOException;
import java.net.URL;
import java.util.Enumeration;

/**
 * The provider's default class loader: each lookup tries the calling thread's context class loader first
 * (the application's, in a container or a Spring Boot jar), then the provider's own. One per provider, so a
 * manager asked for without a class loader is one manager whatever the thread. Holds no loader itself.
 */
final class ContextFirstClassLoader extends ClassLoader {
  static {
    registerAsParallelCapable();
  }

  ContextFirstClassLoader(ClassLoader own) {
    super("hybridcache-jcache-default", own);
  }

  private ClassLoader context() {
    ClassLoader c = Thread.currentThread().getContextClassLoader();
    return c == this ? null : c;
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    ClassLoader c = context();
    if (c != null) {
      try {
        return Class.forName(name, false, c);
      } catch (ClassNotFoundException e) {
        // not the application's: the provider's own
      }
    }
    return super.loadClass(name, resolve);
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
