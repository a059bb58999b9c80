package dev.idem.processor;

import java.io.IOException;
import java.io.Writer;
import javax.annotation.processing.Filer;
import javax.annotation.processing.Messager;
import javax.tools.Diagnostic;
import javax.tools.FileObject;
import javax.tools.StandardLocation;

/**
 * Writes {@code META-INF/idem/<service>.json} next to the classes: every command of the service with its scope, key
 * parts, payload, result shape, mode and retention. One file per service interface, with that interface as its one
 * originating element, keeps the processor isolating (Gradle recompiles a service and its manifest together); a
 * single file for the whole compilation would make the processor aggregating and every build a full one.
 */
final class ManifestWriter {

  private final Filer filer;
  private final Messager messager;

  ManifestWriter(Filer filer, Messager messager) {
    this.filer = filer;
    this.messager = messager;
  }

  void write(ServiceModel model, Manifest manifest) {
    if (manifest.commands().isEmpty()) {
      return; // transitions only: no stored results, nothing to keep compatible
    }
    try {
      FileObject file = filer.createResource(StandardLocation.CLASS_OUTPUT, "",
          Manifest.resourceName(manifest.service()), model.type());
      try (Writer writer = file.openWriter()) {
        writer.write(manifest.toJson());
      }
    } catch (IOException e) {
      messager.printMessage(Diagnostic.Kind.ERROR, "Could not write the idem manifest of " + manifest.service()
          + ": " + e.getMessage(), model.type());
    }
  }
}
