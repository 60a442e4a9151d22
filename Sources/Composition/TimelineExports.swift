// The timeline format and its planner are the pure Timeline module; `import Composition` brings them along, so an
// embedder that builds a timeline and plays it imports one module.
@_exported import Timeline
