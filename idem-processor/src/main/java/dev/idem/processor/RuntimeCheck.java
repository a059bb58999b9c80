package dev.idem.processor;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.Optional;
import java.util.Properties;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.TypeElement;
import javax.tools.FileObject;
import javax.tools.StandardLocation;

/**
 * Checks, once per compilation, that the idem runtime the generated code will call is on the class path and is of
 * this processor's idem version; else each service gets a tagged error instead of a generated file that cannot
 * compile ("package dev.idem.runtime does not exist") or that the runtime would refuse when it starts.
 *
 * <p>The runtime's version is its {@code dev/idem/runtime/internal/idem-version.properties}, read through the
 * Filer from the compile class path. Where the compiler cannot read it (another compiler, a module path), the
 * check says nothing and the runtime's own check in {@code IdemEngine.of} remains.
 */
final class RuntimeCheck {

  /** Beside the door class in the runtime jar; its one key is {@code version}. */
  private static final String VERSION_RESOURCE = "idem-version.properties";

  private final ProcessingEnvironment env;
  /** What is wrong with the runtime on the class path, if anything; null until first asked. */
  private Optional<Problem> problem;

  /** @param runtimeVersion the version of the runtime found, null if none was found */
  private record Problem(Message message, String runtimeVersion) {}

  RuntimeCheck(ProcessingEnvironment env) {
    this.env = env;
  }

  /** Reports on {@code service} why the runtime on the class path cannot run its generated class; false if so. */
  boolean check(TypeElement service, ValidationReport report) {
    if (problem == null) {
      problem = findProblem();
    }
    String processor = ProcessorVersion.VERSION;
    // An if rather than ifPresent with a lambda: a call site the cold processor would link in every compilation.
    if (problem.isPresent()) {
      Problem found = problem.get();
      if (found.message() == Message.RUNTIME_MISSING) {
        report.report(found.message(), service, service.getQualifiedName(), RuntimeNames.IDEM_ENGINE, processor);
      } else {
        report.report(found.message(), service, found.runtimeVersion(), processor, processor,
            found.runtimeVersion());
      }
    }
    return problem.isEmpty();
  }

  private Optional<Problem> findProblem() {
    // The version file first: where it is found, the runtime is there, and the type lookup, which costs javac a
    // parse and an attribution of the name for a type it has not loaded yet, is needed only without it.
    Optional<String> version = runtimeVersion();
    if (version.isPresent()) {
      return version.get().equals(ProcessorVersion.VERSION) ? Optional.empty()
          : Optional.of(new Problem(Message.RUNTIME_VERSION_MISMATCH, version.get()));
    }
    if (env.getElementUtils().getTypeElement(RuntimeNames.IDEM_ENGINE.canonicalName()) == null) {
      return Optional.of(new Problem(Message.RUNTIME_MISSING, null));
    }
    return Optional.empty();
  }

  private Optional<String> runtimeVersion() {
    try {
      FileObject file = env.getFiler().getResource(StandardLocation.CLASS_PATH,
          RuntimeNames.INTERNAL_PACKAGE, VERSION_RESOURCE);
      Properties properties = new Properties();
      try (InputStream in = file.openInputStream()) {
        properties.load(in);
      }
      return Optional.ofNullable(properties.getProperty("version"));
    } catch (FileNotFoundException | NoSuchFileException e) {
      return Optional.empty(); // a runtime from before versioning: its missing IdemEngine.of(runtime, version) fails
    } catch (IOException | IllegalArgumentException | UnsupportedOperationException e) {
      return Optional.empty(); // this compiler's Filer cannot read the class path: the runtime checks at start-up
    }
  }
}
