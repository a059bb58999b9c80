/**
 * idem's runtime API for applications: {@link dev.idem.runtime.IdemRuntime} (built once per data source and table,
 * handed to the generated {@code *_Idempotent} classes), the exceptions commands throw, listeners, and the operator
 * calls ({@link dev.idem.runtime.IdemRuntime#inspect}, {@link dev.idem.runtime.IdemAdmin} with
 * {@link dev.idem.runtime.IdemManifest}). The package {@code dev.idem.runtime.internal} is for generated code only
 * and not part of this API.
 *
 * <p>The exceptions are not meant to be serialized (idem never does), so their serialized form is not documented.
 *
 * @serial exclude
 */
package dev.idem.runtime;
