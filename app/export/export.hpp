// Export the replay (File > Export replay..., --record): the window's own
// frames, one per replay position from A to B, of the chosen panels (the grid
// or the grid and timeline drawn alone as a slide, app/export/slide.hpp, or the
// whole window), written as an animated GIF (giflib), an MP4 (H.264, through Debian's
// ffmpeg) or a numbered PNG sequence (stb). The app steps the replay and
// renders; the exporter picks the positions, crops and encodes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/output_file.hpp"

namespace ts::app {

enum class ExportFormat { Gif, Mp4, PngSequence };
enum class ExportPanels { Grid, GridTimeline, Window };

// The format a file name asks for (.gif, .mp4, .png: a numbered sequence);
// false when it names none of them.
bool export_format_for(const std::string& path, ExportFormat* format);
const char* export_panels_name(ExportPanels p);
// "grid", "grid+timeline" or "window"; false for anything else.
bool export_panels_for(const std::string& name, ExportPanels* panels);

// Receives the frames (RGB, rows from the top) and writes the file.
class FrameSink {
 public:
  virtual ~FrameSink() = default;
  virtual bool add(const unsigned char* rgb, int w, int h, std::string* error) = 0;
  virtual bool finish(std::string* error) = 0;
  // What was written (a PNG sequence: its first and last file).
  virtual std::string written() const = 0;
};
// Every file goes through the output layer under `out` (io/output_file.hpp):
// written to a temporary beside it (ffmpeg too) and published only when the
// export completes, so a failed or cancelled export leaves what was there.
std::unique_ptr<FrameSink> open_frame_sink(ExportFormat format, const std::string& path, int fps,
                                           const OutputOptions& out, std::string* error);

// The positions of the frames: `frames` of them spread evenly from `from` to
// `to` (both included), never more than the events between them.
std::vector<uint64_t> export_positions(uint64_t from, uint64_t to, int frames);
// How many frames: fps x seconds (rounded); or, when events_per_second > 0,
// fps x the seconds the replay takes at that speed. At least 1, never more
// than the positions from `from` to `to`.
int export_frame_count(uint64_t from, uint64_t to, int fps, double seconds,
                       double events_per_second);

struct ExportRequest {
  std::string path;
  uint64_t from = 0, to = 0;  // replay positions
  int fps = 10;
  double seconds = 10;           // the animation's length ...
  double events_per_second = 0;  // ... or the replay's speed (events a second), when > 0
  ExportPanels panels = ExportPanels::Window;
  std::string title;     // a line drawn above the frames' panels; empty: none
  OutputOptions output;  // the inputs never written over; whether files may be replaced
};

// The files an export writes: the one file, or each of a PNG sequence's
// (out_0000.png, ...); empty when the name asks for no format.
std::vector<std::string> export_files(const ExportRequest& req);

// One export in progress, driven frame by frame by the app: before a frame it
// names the position to show; after the frame is rendered it takes the pixels.
class Exporter {
 public:
  bool start(const ExportRequest& req, std::string* error);
  bool active() const { return sink_ != nullptr; }
  // The replay position the next frame should show.
  uint64_t next_position() const { return positions_[next_]; }
  // Takes the rendered frame (the GL back buffer, fw x fh pixels: the panels
  // were drawn to fill it). Returns false on an error (the export is then over).
  bool capture(int fw, int fh, std::string* error);
  bool done() const { return active() && next_ >= positions_.size(); }
  // Writes the file's end; the export is over either way.
  bool finish(std::string* error);
  void cancel();

  const ExportRequest& request() const { return req_; }
  int frames_total() const { return int(positions_.size()); }
  int frames_done() const { return int(next_); }
  int width() const { return w_; }
  int height() const { return h_; }
  double seconds_elapsed() const;
  std::string written() const { return written_; }

 private:
  ExportRequest req_;
  ExportFormat format_ = ExportFormat::Gif;
  std::vector<uint64_t> positions_;
  size_t next_ = 0;
  std::unique_ptr<FrameSink> sink_;
  int w_ = 0, h_ = 0;  // the first frame's size; later frames keep it
  double started_ = 0;
  std::string written_;
  std::vector<unsigned char> px_, crop_;
};

}  // namespace ts::app
