package io.hybridcache.core.engine;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test of {@link io.hybridcache.core.api.IndexType#CHRONICLE}: it runs in core's surefire execution
 * "chronicle", the only test JVM with the module flags Chronicle Map needs. Every other test runs as users
 * run, with no flags.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("chronicle")
@interface NeedsChronicle {}
