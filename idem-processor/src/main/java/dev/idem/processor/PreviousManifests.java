package dev.idem.processor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.annotation.processing.Messager;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.util.Elements;
import javax.tools.Diagnostic;

/**
 * The manifests of a previous release ({@code -Aidem.previousManifest=<file or directory>}), compared with what
 * this build generates: a scope that is gone (a renamed method or interface, a changed explicit scope) leaves the
 * records stored under it unseen, so retries after the deploy run again; a changed result shape makes records
 * stored before replay wrong. Both are errors, or warnings with {@code -Aidem.previousManifest.severity=warning}.
 */
final class PreviousManifests {

  static final String OPTION = "idem.previousManifest";
  static final String SEVERITY_OPTION = "idem.previousManifest.severity";

  private final Map<String, Manifest> byService;
  private final Diagnostic.Kind severity;

  private PreviousManifests(Map<String, Manifest> byService, Diagnostic.Kind severity) {
    this.byService = byService;
    this.severity = severity;
  }

  /** The previous manifests the options name; none (and nothing checked) without the option. */
  static PreviousManifests load(Map<String, String> options, Messager messager) {
    String location = options.get(OPTION);
    String severityText = options.getOrDefault(SEVERITY_OPTION, "error");
    Diagnostic.Kind severity = Diagnostic.Kind.ERROR;
    if (severityText.equalsIgnoreCase("warning")) {
      severity = Diagnostic.Kind.WARNING;
    } else if (!severityText.equalsIgnoreCase("error")) {
      messager.printMessage(Diagnostic.Kind.ERROR,
          Message.MANIFEST_UNREADABLE.format(SEVERITY_OPTION + "=" + severityText, "write error or warning"));
    }
    Map<String, Manifest> byService = new TreeMap<>();
    if (location == null || location.isBlank()) {
      return new PreviousManifests(byService, severity);
    }
    Path path = Path.of(location);
    try {
      List<Path> files;
      if (Files.isDirectory(path)) {
        try (Stream<Path> walk = Files.walk(path)) {
          files = walk.filter(file -> file.toString().endsWith(".json")).sorted().collect(Collectors.toList());
        }
      } else {
        files = List.of(path); // a missing file fails below, with its name
      }
      for (Path file : files) {
        try {
          Manifest manifest = Manifest.fromJson(Files.readString(file, StandardCharsets.UTF_8));
          byService.put(manifest.service(), manifest);
        } catch (RuntimeException notAManifest) {
          messager.printMessage(Diagnostic.Kind.ERROR,
              Message.MANIFEST_UNREADABLE.format(file, notAManifest.getMessage()));
        }
      }
    } catch (IOException e) {
      messager.printMessage(Diagnostic.Kind.ERROR, Message.MANIFEST_UNREADABLE.format(path, e));
    }
    return new PreviousManifests(byService, severity);
  }

  /** Reports every scope of the service's previous manifest that is gone, and every result shape that changed. */
  void check(ServiceModel model, Manifest current, ValidationReport report) {
    Manifest previous = byService.get(current.service());
    if (previous == null) {
      return;
    }
    Map<String, Manifest.Command> now = new LinkedHashMap<>();
    current.commands().forEach(command -> now.put(command.scope(), command));
    for (Manifest.Command before : previous.commands()) {
      Manifest.Command after = now.get(before.scope());
      if (after == null) {
        Optional<ExecutableElement> sameMethod = method(model, before.method());
        // The method usually is still there under another name: say what keeps its records either way.
        String hint = sameMethod.isPresent()
            ? "; " + before.method() + "() is still there: set scope = \"" + before.scope() + "\" on it to keep its"
                + " records"
            : "; if " + before.method() + "() was renamed, set scope = \"" + before.scope() + "\" on the method"
                + " that replaced it to keep its records";
        report.reportAs(severity, Message.MANIFEST_SCOPE_GONE, sameMethod.map(Element.class::cast)
            .orElse(model.type()), before.scope(), before.method(), current.service(), hint);
      } else if (!CodecTypeReader.compatibilityHash(before.resultShape()).equals(after.resultShapeHash())) {
        // Recomputed from the previous text, not its stored hash: manifests written before the hash left enum
        // constants out compare the same way.
        report.reportAs(severity, Message.MANIFEST_SHAPE_CHANGED, method(model, after.method()).orElseThrow(),
            after.method(), after.scope(), before.resultShape(), after.resultShape(), after.scope());
      } else {
        String removed = removedEnumConstants(before.resultShape(), after.resultShape());
        if (!removed.isEmpty()) {
          report.reportAs(severity, Message.MANIFEST_ENUM_CONSTANT_GONE, method(model, after.method()).orElseThrow(),
              after.method(), after.scope(), removed, after.scope());
        }
      }
    }
  }

  /**
   * The enum constants a record stored with the previous shape may hold that the current shape no longer has, as
   * {@code Enum.CONSTANT} in name order; empty if none (added or reordered constants read back as they were).
   */
  private static String removedEnumConstants(String previousShape, String currentShape) {
    Map<String, Set<String>> now = CodecTypeReader.enumConstants(currentShape);
    List<String> removed = new ArrayList<>();
    CodecTypeReader.enumConstants(previousShape).forEach((type, constants) -> {
      Set<String> still = now.getOrDefault(type, Set.of());
      constants.stream().filter(constant -> !still.contains(constant)).sorted()
          .forEach(constant -> removed.add(type + "." + constant));
    });
    return String.join(", ", removed);
  }

  /** Services of the previous manifests that this compilation knows nothing of: removed or renamed. */
  void reportVanishedServices(Elements elements, Messager messager) {
    for (Manifest previous : byService.values()) {
      if (elements.getTypeElement(previous.service()) == null) {
        String scopes = previous.commands().stream().map(Manifest.Command::scope).collect(Collectors.joining(", "));
        messager.printMessage(severity, Message.MANIFEST_SERVICE_GONE.format(previous.service(), scopes));
      }
    }
  }

  private static Optional<ExecutableElement> method(ServiceModel model, String name) {
    return model.methods().stream()
        .map(MethodModel::method)
        .filter(method -> method.getSimpleName().contentEquals(name))
        .findFirst();
  }
}
